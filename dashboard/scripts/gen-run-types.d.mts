/** The generated files (paths relative to dashboard/) and their text. */
export function generate(): Promise<Record<string, string>>;
