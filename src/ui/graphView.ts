// The drawing of one channel with sigma.js (WebGL) over a graphology graph: versions laid out in lanes
// by minor (layout.ts), recommended and conditional edges in their own colours. Only the edges shown
// are in the drawn graph — the selected version's (all of them on demand), a planned path, or the pair
// an explanation is about — so a large channel draws fast. The arrow keys move the selection.
import { DirectedGraph } from 'graphology';
import Sigma from 'sigma';
import { EdgeArrowProgram } from 'sigma/rendering';
import { EdgeCurvedArrowProgram } from '@sigma/edge-curve';
import type { Settings } from 'sigma/settings';
import type { EdgeDisplayData, NodeDisplayData } from 'sigma/types';
import type { GraphDocument } from './api.js';
import { STEP, arcCurvature, versionOrder, laneGap, layeredLayout, type Placement } from './layout.js';

export const COLORS = {
  node: '#4d4d4d',
  selected: '#0066cc',
  target: '#004d99',
  ghost: '#a3a3a3',
  path: '#3d7317',
  recommended: '#0066cc',
  conditional: '#dca614',
  incoming: '#b8bbbe',
  lane: '#6a6e73',
};

interface NodeAttributes {
  x: number;
  y: number;
  size: number;
  label: string;
  color: string;
  /** A lane's caption, not a version. */
  caption?: boolean;
  /** On a planned path but not in the channel drawn. */
  ghost?: boolean;
}

interface EdgeAttributes {
  kind: 'recommended' | 'conditional';
  risks: string[];
  type: 'curved' | 'arrow';
  curvature: number;
  size: number;
  color: string;
}

type Programs = NonNullable<Partial<Settings<NodeAttributes, EdgeAttributes>>['edgeProgramClasses']>;

export interface Highlight {
  /** Versions in path order. */
  versions: string[];
  /** A planned path (every hop drawn) or the pair an explanation is about (its edge drawn when it exists). */
  kind: 'path' | 'pair';
}

export class GraphView {
  private readonly graph = new DirectedGraph<NodeAttributes, EdgeAttributes>();
  private readonly sigma: Sigma<NodeAttributes, EdgeAttributes>;
  private placements = new Map<string, Placement>();
  private lanes: string[][] = [];
  /** Every edge of the channel, keyed `from>to`; the drawn graph holds only those shown. */
  private edges = new Map<string, EdgeAttributes>();
  private outgoing = new Map<string, string[]>();
  private incoming = new Map<string, string[]>();
  private selected = '';
  private allEdges = false;
  private highlight: Highlight | undefined;
  private highlightNodes = new Set<string>();
  private highlightEdges = new Set<string>();
  /** Called when the user selects a version on the graph (a click, or the arrow keys). */
  onSelect: (version: string, how: { keyboard: boolean }) => void = () => {};

  constructor(container: HTMLElement) {
    this.sigma = new Sigma<NodeAttributes, EdgeAttributes>(this.graph, container, {
      defaultEdgeType: 'arrow',
      // The programs are written for any attributes; sigma's types want them for these ones.
      edgeProgramClasses: { arrow: EdgeArrowProgram, curved: EdgeCurvedArrowProgram } as unknown as Programs,
      renderEdgeLabels: false,
      labelRenderedSizeThreshold: 2,
      labelFont: 'RedHatText, "Red Hat Text", sans-serif',
      labelSize: 12,
      zIndex: true,
      stagePadding: 40,
      defaultDrawNodeLabel: drawLabel,
      labelDensity: 2,
      labelGridCellSize: 60,
      nodeReducer: (node, data) => this.nodeLook(node, data),
      edgeReducer: (edge, data) => this.edgeLook(edge, data),
    });
    this.sigma.on('clickNode', ({ node }) => {
      if (!this.graph.getNodeAttribute(node, 'caption')) this.onSelect(node, { keyboard: false });
    });
    this.sigma.on('enterNode', () => (container.style.cursor = 'pointer'));
    this.sigma.on('leaveNode', () => (container.style.cursor = ''));
    container.addEventListener('keydown', (event) => this.onKey(event));
  }

  /** Draws a channel's graph document, replacing what was drawn. */
  setChannel(doc: GraphDocument): void {
    this.graph.clear();
    this.edges.clear();
    this.outgoing.clear();
    this.incoming.clear();
    this.highlight = undefined;
    this.highlightNodes.clear();
    this.highlightEdges.clear();
    this.placements = layeredLayout(doc.nodes.map((n) => n.version));
    this.lanes = [];
    for (const [version, p] of this.placements) (this.lanes[p.lane] ??= [])[p.rank] = version;
    const gap = laneGap(Math.max(1, ...this.lanes.map((l) => l.length)), this.lanes.length);
    for (const [version, p] of this.placements)
      this.graph.addNode(version, { x: p.x, y: p.lane * gap, size: 4, label: version, color: COLORS.node });
    this.lanes.forEach((lane, i) => {
      const minor = this.placements.get(lane[0]!)!.minor;
      this.graph.addNode(`lane:${minor}`, {
        x: -4 * STEP,
        y: i * gap,
        size: 0.1,
        label: minor,
        color: COLORS.lane,
        caption: true,
      });
    });
    const versions = doc.nodes.map((n) => n.version);
    for (const [f, t] of doc.edges) this.addEdge(versions[f]!, versions[t]!, 'recommended', []);
    for (const group of doc.conditionalEdges) {
      const risks = group.risks.map((r) => r.name);
      for (const e of group.edges) this.addEdge(e.from, e.to, 'conditional', risks);
    }
    if (!this.placements.has(this.selected)) this.selected = '';
    this.sigma.getCamera().setState({ x: 0.5, y: 0.5, ratio: 1, angle: 0 });
    this.sync();
  }

  has(version: string): boolean {
    return this.placements.has(version);
  }

  /** The versions a version's edges lead to, with the edge's kind and risks. */
  targets(version: string): Array<{ to: string; kind: EdgeAttributes['kind']; risks: string[] }> {
    return (this.outgoing.get(version) ?? []).map((to) => {
      const e = this.edges.get(`${version}>${to}`)!;
      return { to, kind: e.kind, risks: e.risks };
    });
  }

  sources(version: string): string[] {
    return this.incoming.get(version) ?? [];
  }

  select(version: string): void {
    const before = this.selected;
    this.selected = this.placements.has(version) ? version : '';
    if (!this.allEdges) return this.sync();
    // Every edge is drawn already: only what touches the old and the new selection changes its look.
    const nodes = new Set<string>();
    const edges = new Set<string>();
    for (const v of [before, this.selected].filter((x) => x !== '')) {
      nodes.add(v);
      for (const to of this.outgoing.get(v) ?? []) {
        nodes.add(to);
        edges.add(`${v}>${to}`);
      }
      for (const from of this.incoming.get(v) ?? []) edges.add(`${from}>${v}`);
    }
    this.sigma.refresh({ partialGraph: { nodes: [...nodes], edges: [...edges].filter((e) => this.graph.hasEdge(e)) } });
  }

  setAllEdges(all: boolean): void {
    this.allEdges = all;
    this.sync();
  }

  /** Draws a path (or a pair) over the channel; versions the channel lacks are added as ghosts. */
  setHighlight(highlight: Highlight | undefined): void {
    this.graph.filterNodes((_, a) => a.ghost === true).forEach((n) => this.graph.dropNode(n));
    this.highlight = highlight;
    this.highlightNodes = new Set(highlight?.versions ?? []);
    this.highlightEdges.clear();
    if (highlight) {
      const missing = highlight.versions.filter((v) => !this.placements.has(v));
      const gap = laneGap(Math.max(1, ...this.lanes.map((l) => l.length)), this.lanes.length);
      if (missing.length > 0) {
        // Ghosts are placed with the channel's versions, so each lands between its neighbours.
        const placed = layeredLayout([...this.placements.keys(), ...missing]);
        for (const v of missing) {
          const p = placed.get(v)!;
          const y =
            ghostLane(
              this.lanes.map((l) => this.placements.get(l[0]!)!.minor),
              p.minor,
            ) * gap;
          this.graph.addNode(v, { x: p.x, y, size: 4, label: v, color: COLORS.ghost, ghost: true });
        }
      }
      for (let i = 0; i + 1 < highlight.versions.length; i++) {
        const key = `${highlight.versions[i]!}>${highlight.versions[i + 1]!}`;
        // A path's hop is drawn even where this channel lacks it; a pair only when the edge is here.
        if (highlight.kind === 'path' || this.edges.has(key)) this.highlightEdges.add(key);
      }
    }
    this.sync();
  }

  /** Puts exactly the edges to show into the drawn graph, then draws. */
  private sync(): void {
    const wanted = new Set<string>(this.highlightEdges);
    if (this.allEdges) for (const key of this.edges.keys()) wanted.add(key);
    else if (this.selected) {
      for (const to of this.outgoing.get(this.selected) ?? []) wanted.add(`${this.selected}>${to}`);
      for (const from of this.incoming.get(this.selected) ?? []) wanted.add(`${from}>${this.selected}`);
    }
    for (const key of this.graph.edges()) if (!wanted.has(key)) this.graph.dropEdge(key);
    for (const key of wanted) {
      if (this.graph.hasEdge(key)) continue;
      const [from, to] = key.split('>') as [string, string];
      if (!this.graph.hasNode(from) || !this.graph.hasNode(to)) continue;
      const attributes = this.edges.get(key) ?? { ...PATH_EDGE };
      this.graph.addEdgeWithKey(key, from, to, attributes);
    }
    this.sigma.refresh();
  }

  private addEdge(from: string, to: string, kind: EdgeAttributes['kind'], risks: string[]): void {
    const f = this.placements.get(from);
    const t = this.placements.get(to);
    if (!f || !t) return;
    const sameLane = f.lane === t.lane;
    this.edges.set(`${from}>${to}`, {
      kind,
      risks,
      type: sameLane ? 'curved' : 'arrow',
      curvature: sameLane ? arcCurvature(f, t) : 0,
      size: 1,
      color: kind === 'recommended' ? COLORS.recommended : COLORS.conditional,
    });
    push(this.outgoing, from, to);
    push(this.incoming, to, from);
  }

  private nodeLook(node: string, data: NodeAttributes): Partial<NodeDisplayData> {
    if (data.caption) return { ...data, forceLabel: true, size: 0.1 };
    const look: Partial<NodeDisplayData> = { ...data };
    if (this.highlightNodes.has(node)) {
      look.color = data.ghost ? COLORS.ghost : COLORS.path;
      look.size = 6;
      look.forceLabel = true;
      look.zIndex = 2;
    }
    if (node === this.selected) {
      look.color = COLORS.selected;
      look.size = 8;
      look.forceLabel = true;
      look.highlighted = true;
      look.zIndex = 3;
    } else if (this.selected && this.edges.has(`${this.selected}>${node}`)) {
      look.color = COLORS.target;
      look.zIndex = 1;
    }
    return look;
  }

  private edgeLook(edge: string, data: EdgeAttributes): Partial<EdgeDisplayData> {
    if (this.highlightEdges.has(edge)) return { ...data, color: COLORS.path, size: 4, zIndex: 3 };
    if (this.graph.source(edge) === this.selected) return { ...data, size: 2, zIndex: 2 };
    if (this.graph.target(edge) === this.selected) return { ...data, color: COLORS.incoming, size: 1, zIndex: 1 };
    // Every edge on demand; faint under a path, so the path stands out.
    return this.highlight ? { ...data, color: COLORS.incoming, size: 0.5 } : { ...data, size: 0.5 };
  }

  private onKey(event: KeyboardEvent): void {
    const moves: Record<string, [number, number]> = {
      ArrowLeft: [0, -1],
      ArrowRight: [0, 1],
      ArrowUp: [1, 0],
      ArrowDown: [-1, 0],
      Home: [0, -Infinity],
      End: [0, Infinity],
    };
    const move = moves[event.key];
    if (!move || this.lanes.length === 0) return;
    event.preventDefault();
    const at = this.placements.get(this.selected);
    if (!at) {
      this.onSelect(this.lanes[this.lanes.length - 1]![0]!, { keyboard: true });
      return;
    }
    const lane = this.lanes[Math.min(Math.max(at.lane + move[0], 0), this.lanes.length - 1)]!;
    // Across lanes, the version at the same position (or the lane's last); along one, the next one.
    const rank = move[0] !== 0 ? at.rank : at.rank + move[1];
    const next = lane[Math.min(Math.max(rank, 0), lane.length - 1)]!;
    if (next !== this.selected) this.onSelect(next, { keyboard: true });
  }
}

/**
 * Version labels slant upwards from their node, so neighbours along a lane do not overwrite each other;
 * a lane's caption reads level, left of the lane.
 */
function drawLabel(
  context: CanvasRenderingContext2D,
  data: { x: number; y: number; size: number; label: string | null; color: string; caption?: boolean },
  settings: { labelSize: number; labelFont: string; labelWeight: string },
): void {
  if (!data.label) return;
  context.font = `${data.caption ? 'bold' : settings.labelWeight} ${settings.labelSize}px ${settings.labelFont}`;
  context.fillStyle = data.caption ? COLORS.lane : '#151515';
  if (data.caption) {
    context.fillText(data.label, data.x - context.measureText(data.label).width, data.y + settings.labelSize / 3);
    return;
  }
  context.save();
  context.translate(data.x + 2, data.y - data.size - 2);
  context.rotate(-Math.PI / 4);
  context.fillText(data.label, 0, 0);
  context.restore();
}

/** An edge a planned path takes that the channel drawn does not have. */
const PATH_EDGE: EdgeAttributes = {
  kind: 'recommended',
  risks: [],
  type: 'arrow',
  curvature: 0,
  size: 1,
  color: COLORS.path,
};

/**
 * The lane a version outside the channel is drawn in: just above its minor's lane, else between the
 * lanes of the minors around it (below the oldest, above the newest).
 */
function ghostLane(laneMinors: string[], minor: string): number {
  const same = laneMinors.indexOf(minor);
  if (same >= 0) return same + 0.15;
  const above = laneMinors.findIndex((m) => versionOrder(`${m}.0`, `${minor}.0`) > 0);
  return above < 0 ? laneMinors.length : above - 0.5;
}

function push(index: Map<string, string[]>, key: string, value: string): void {
  const list = index.get(key);
  if (list) list.push(value);
  else index.set(key, [value]);
}
