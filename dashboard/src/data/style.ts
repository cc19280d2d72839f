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

/** ghz is the gRPC specialist; its series use a lighter shade of the gRPC colour. */
export function toolShade(tool: Tool): number {
  return tool === 'ghz' ? 0.45 : 0;
}

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
