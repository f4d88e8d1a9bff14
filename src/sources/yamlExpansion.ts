// The length a YAML document would have with every alias written out in full. The yaml package shares
// an aliased value instead of copying it, but whatever walks or serializes the value later (validation,
// JSON.stringify in the store) pays for every copy, so a file is measured by this length, not by its
// own. Counted on the parsed nodes, in characters of the source, without expanding anything.
import { isAlias, isCollection, isPair, type Document, type Node } from '#yaml';

/** The length of `text` once each alias in `doc` (parsed from it) is replaced by the text of the node it names. */
export function expandedLength(doc: Document, text: string): number {
  // What writing out the aliases under a node adds to its length, per node: a node named by many
  // aliases is measured once.
  const added = new Map<unknown, number>();
  const measuring = new Set<unknown>();
  const length = (node: Node): number => (node.range ? node.range[1] - node.range[0] : 0);
  const growth = (node: unknown): number => {
    const known = added.get(node);
    if (known !== undefined) return known;
    // An alias inside the very node it names: written out, the document would never end.
    if (measuring.has(node)) throw new Error('an alias inside the node it names');
    measuring.add(node);
    let sum = 0;
    if (isAlias(node)) {
      const target = node.resolve(doc);
      if (target) sum = length(target) + growth(target) - length(node);
    } else if (isCollection(node)) {
      for (const item of node.items) sum += growth(item);
    } else if (isPair(node)) {
      sum = growth(node.key) + growth(node.value);
    }
    measuring.delete(node);
    added.set(node, sum);
    return sum;
  };
  return text.length + growth(doc.contents);
}
