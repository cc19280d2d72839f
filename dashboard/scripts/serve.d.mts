import type { Server, IncomingMessage, ServerResponse } from 'node:http';

export function resultsDir(): string;
export function resultsMiddleware(dir: string): (req: IncomingMessage, res: ServerResponse, next: () => void) => void;
export function startServer(options?: { distDir?: string; results?: string; host?: string; port?: number }): Promise<Server>;
