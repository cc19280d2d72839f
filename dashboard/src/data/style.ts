// One colour per protocol and one line style per cache mode, used the same way in every chart.
import type { CacheMode, Protocol, Tool } from './types';

export const PROTOCOL_COLOURS: Record<Protocol, string> = {
  rest: '#d9480f', // orange
  grpc: '#1864ab', // blue
};

export const PROTOCOL_LABELS: Record<Protocol, string> = { rest: 'REST', grpc: 'gRPC' };

export const CACHE_DASH: Record<CacheMode, number[]> = {
  none: [],
  local: [8, 4],
  redis: [2, 3],
  hybrid: [12, 3, 3, 3],
};

export const CACHE_POINT: Record<CacheMode, 'circle' | 'rect' | 'triangle' | 'rectRot'> = {
  none: 'circle',
  local: 'rect',
  redis: 'triangle',
  hybrid: 'rectRot',
};

export const CACHE_LABELS: Record<CacheMode, string> = {
  none: 'no cache',
  local: 'local (L1)',
  redis: 'redis (L2)',
  hybrid: 'hybrid (L1+L2)',
};

/** The protocol's colour mixed with white: shade 0 is the colour itself, 1 is white. */
export function protocolColour(protocol: Protocol, shade = 0): string {
  const hex = PROTOCOL_COLOURS[protocol];
  const rgb = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  const mixed = rgb.map((c) => Math.round(c + (255 - c) * shade));
  return `#${mixed.map((c) => c.toString(16).padStart(2, '0')).join('')}`;
}

/**
 * k6 drives both wires and is drawn in the protocol colour itself; the single-wire specialists
 * (ghz for gRPC, h2load and oha for REST) in lighter shades of it.
 */
export function toolShade(tool: Tool): number {
  return { k6: 0, ghz: 0.45, h2load: 0.45, oha: 0.3 }[tool];
}

/** Flagged cells and windows: drawn in this grey instead of their colour (with the reason beside). */
export const FLAGGED_COLOUR = '#b4b4b4';
/** Error bars (the 95 % interval): near black, darker than any text or protocol colour. */
export const ERROR_BAR_COLOUR = '#111111';
/** Error bars of a flagged point. */
export const FLAGGED_ERROR_BAR_COLOUR = '#8a8a8a';

/** "REST", or "gRPC · TLS" for cells measured over TLS: the Protocol column of the tables. */
export function protocolLabel(protocol: Protocol, tls = false): string {
  return `${PROTOCOL_LABELS[protocol]}${tls ? ' · TLS' : ''}`;
}

/** "REST · k6", and "gRPC · ghz · TLS" for a series measured over TLS. */
export function seriesName(protocol: Protocol, tool: Tool, tls = false): string {
  return `${PROTOCOL_LABELS[protocol]} · ${tool}${tls ? ' · TLS' : ''}`;
}

/** How a transport is named in filters and tables. */
export function transportLabel(tls: boolean): string {
  return tls ? 'TLS' : 'plain TCP';
}
