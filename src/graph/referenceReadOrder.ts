// The order in which the reference service reads its blocked-edges folder, which is the order of the
// risks it lists in a conditional edge.
//
// The reference graph-builder appends one risk per blocked-edges file, in the order the folder lists
// them (a plain read_dir, never sorted). It unpacks the graph-data tarball, whose entries come in name
// order, into a fresh directory on XFS (the filesystem of RHCOS nodes), so the listing is XFS's
// directory order for names created in byte order. That order is mostly name order, but XFS puts a new
// entry into an earlier directory block when the last one is too full and an earlier one has room, so a
// short name can come before longer names created ahead of it. On the public service's answers of
// 2024-08-09 this model reproduces every one of the 448 distinct risk lists with more than one risk;
// plain name order gets 5 wrong.
//
// The model follows XFS v5 directories (4 KiB directory blocks, file types in entries) as Linux 5.5 and
// later grow them: a single block holding entries and their hash leaf, then data blocks with a separate
// leaf (first block with room wins), then node form once the leaf block is full (the last block with
// room wins). Entries are never removed, as in a fresh unpack.

const BLOCK = 4096;
const DATA_HEADER = 64; // xfs_dir3_data_hdr
const LEAF_HEADER = 64; // xfs_dir3_leaf_hdr
const LEAF_ENTRY = 8; // hash and address
const BLOCK_TAIL = 8; // leaf count and stale count at the end of a single-block directory
const LEAF_TAIL = 4; // number of per-block free-space slots at the end of the leaf block
const BEST_SLOT = 2; // one free-space slot per data block
const DOT_ENTRIES = 2 * 16; // "." and "..", written first when the directory leaves the inode

/** The bytes a directory entry takes: inode number, name length, name, file type, tag; 8-aligned. */
function entrySize(name: string): number {
  return Math.ceil((8 + 1 + Buffer.byteLength(name) + 1 + 2) / 8) * 8;
}

/** `names` as a directory listing shows them after they were created in byte order. */
export function referenceReadOrder(names: readonly string[]): string[] {
  const created = [...names].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  const blocks: string[][] = [[]];
  const free: number[] = [BLOCK - DATA_HEADER - DOT_ENTRIES];
  let form: 'block' | 'leaf' | 'node' = 'block';
  let entries = 2; // leaf entries, "." and ".." included

  const place = (name: string, size: number, block: number | undefined): void => {
    if (block === undefined) {
      blocks.push([]);
      free.push(BLOCK - DATA_HEADER);
      block = blocks.length - 1;
    }
    blocks[block]!.push(name);
    free[block]! -= size;
    entries += 1;
  };

  for (const name of created) {
    const size = entrySize(name);
    if (form === 'block') {
      // The free space sits between the entries and the leaf, which grows by one slot per entry.
      const leafBytes = BLOCK_TAIL + LEAF_ENTRY * entries;
      if (free[0]! - leafBytes >= size + LEAF_ENTRY) {
        place(name, size, 0);
        continue;
      }
      form = 'leaf'; // the leaf moves out, and its bytes become free space of block 0
    }
    if (form === 'leaf') {
      const fit = free.findIndex((f) => f >= size);
      const block = fit === -1 ? undefined : fit;
      const need = LEAF_ENTRY + (block === undefined ? BEST_SLOT : 0);
      const room = BLOCK - LEAF_TAIL - BEST_SLOT * free.length - (LEAF_HEADER + LEAF_ENTRY * entries);
      if (room >= need) {
        place(name, size, block);
        continue;
      }
      form = 'node';
    }
    let block: number | undefined;
    for (let i = free.length - 1; i >= 0; i--) {
      if (free[i]! >= size) {
        block = i;
        break;
      }
    }
    place(name, size, block);
  }
  return blocks.flat();
}
