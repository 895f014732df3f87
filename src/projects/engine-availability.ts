import { accessSync, constants } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { AppError } from '../lib/errors.js';

export const ENGINES = ['latex', 'typst'] as const;
export type Engine = (typeof ENGINES)[number];

/**
 * Which compile engines this process can run (docs/decisions.md, "Compile engines are discovered at
 * start"). LaTeX needs `latexmk` and `pdflatex` on the engines' PATH (TeX Live, a system package);
 * Typst is the npm package the runner loads. LaTeX is looked up on every question (a few `access`
 * calls), so TeX Live installed while the server runs counts at once.
 */
export interface EngineStatus {
  engine: Engine;
  available: boolean;
  /** What is missing and how to install it, when unavailable. */
  missing: string | null;
}

/** The packages `.ci/run` and `npm test` install (Debian): latexmk, pdflatex, the standard classes and fonts. */
export const TEX_LIVE_PACKAGES = [
  'latexmk',
  'texlive-latex-base',
  'texlive-latex-recommended',
  'texlive-fonts-recommended',
];
export const TEX_LIVE_INSTALL = `apt-get install --no-install-recommends ${TEX_LIVE_PACKAGES.join(' ')}`;

function onPath(command: string, searchPath: string): boolean {
  return searchPath.split(path.delimiter).some((dir) => {
    if (!dir) return false;
    try {
      accessSync(path.join(dir, command), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

let typst: boolean | undefined;
function typstInstalled(): boolean {
  if (typst === undefined) {
    try {
      createRequire(import.meta.url).resolve('@myriaddreamin/typst-ts-node-compiler');
      typst = true;
    } catch {
      typst = false;
    }
  }
  return typst;
}

function detect(engine: Engine, searchPath: string): EngineStatus {
  if (engine === 'latex') {
    const absent = ['latexmk', 'pdflatex'].filter((c) => !onPath(c, searchPath));
    const missing = absent.length
      ? `${absent.join(' and ')} not found on the engines' PATH; install TeX Live: ${TEX_LIVE_INSTALL}`
      : null;
    return { engine, available: !missing, missing };
  }
  const installed = typstInstalled();
  return {
    engine,
    available: installed,
    missing: installed ? null : 'the npm package @myriaddreamin/typst-ts-node-compiler is not installed (npm ci)',
  };
}

/** Every engine's status for engines run with `searchPath` as PATH. */
export function engineStatuses(searchPath: string): Record<Engine, EngineStatus> {
  return Object.fromEntries(ENGINES.map((e) => [e, detect(e, searchPath)])) as Record<Engine, EngineStatus>;
}

export function engineAvailable(searchPath: string, engine: Engine): boolean {
  return detect(engine, searchPath).available;
}

/** The error a job for a missing engine ends with (the job is recorded `failed` with this code). */
export function engineUnavailable(searchPath: string, engine: Engine): AppError | undefined {
  const s = detect(engine, searchPath);
  return s.available ? undefined : new AppError('ENGINE_UNAVAILABLE', `this server cannot run ${engine}: ${s.missing}`);
}

/** The start-up line: `compile engines: typst ✓  latex ✗ (install: …)`. */
export function engineSummary(searchPath: string): string {
  const parts = Object.values(engineStatuses(searchPath)).map((s) =>
    s.available
      ? `${s.engine} ✓`
      : `${s.engine} ✗ (${s.engine === 'latex' ? `install: ${TEX_LIVE_INSTALL}` : s.missing})`,
  );
  return `compile engines: ${parts.join('  ')}`;
}
