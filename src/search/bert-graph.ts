import { FLOAT, GraphBuilder, INT64 } from './onnx-graph.js';
import type { ModelFiles, Tensor } from './local-model-files.js';

/**
 * all-MiniLM-L6-v2 as an ONNX graph, built from the checkpoint's tensors: BERT (word + position + token-type-0
 * embeddings, LayerNorm, then per layer self-attention and a feed-forward block with erf GELU, each closed by a
 * residual LayerNorm) and the sentence-transformers head's mean pooling over the attention mask. Inputs `input_ids`
 * and `attention_mask` (int64, [batch, seq]); output `pooled` (float, [batch, hidden]), not yet normalised: the
 * embedder averages a long passage's windows before normalising (local-embedder.ts).
 *
 * The node pattern follows the one Hugging Face's exporter writes, so ONNX Runtime's graph optimizer recognises it
 * (Gelu, LayerNorm and attention fusions).
 */
function floats(t: Tensor | undefined, name: string): Float32Array {
  if (!t || t.dtype !== 'F32') throw new Error(`model.safetensors: ${name} is missing or not F32`);
  // A copy: the tensor's bytes may sit at an offset that is not a multiple of 4.
  return new Float32Array(new Uint8Array(t.data).buffer);
}

/** A [out, in] torch Linear weight as the [in, out] right operand of MatMul. */
function transposed(w: Float32Array, rows: number, cols: number): Float32Array {
  const out = new Float32Array(w.length);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[c * rows + r] = w[r * cols + c]!;
  return out;
}

export function buildBertGraph(files: ModelFiles): Uint8Array {
  const { config, tensors } = files;
  const hidden = config.hidden_size;
  const heads = config.num_attention_heads;
  const headSize = hidden / heads;
  const eps = config.layer_norm_eps;
  if (config.hidden_act !== 'gelu') throw new Error(`unsupported activation ${config.hidden_act}`);
  if (files.pooling.pooling_mode_mean_tokens !== true) throw new Error('the model does not pool by mean');

  const g = new GraphBuilder();
  const t = (name: string) => floats(tensors.get(name), name);
  const ids = g.input('input_ids', INT64, ['batch', 'seq']);
  const mask = g.input('attention_mask', INT64, ['batch', 'seq']);

  const linear = (x: string, prefix: string, inDim: number, outDim: number) => {
    const w = g.weight(`${prefix}.weight`, [inDim, outDim], transposed(t(`${prefix}.weight`), outDim, inDim));
    const b = g.weight(`${prefix}.bias`, [outDim], t(`${prefix}.bias`));
    return g.op('Add', [g.op('MatMul', [x, w]), b]);
  };
  const layerNorm = (x: string, prefix: string) =>
    g.op(
      'LayerNormalization',
      [
        x,
        g.weight(`${prefix}.weight`, [hidden], t(`${prefix}.weight`)),
        g.weight(`${prefix}.bias`, [hidden], t(`${prefix}.bias`)),
      ],
      { axis: -1, epsilon: { float: eps } },
    );

  // Embeddings: token type is always 0 (one sentence), so its row is folded into the position table.
  const positions = t('embeddings.position_embeddings.weight');
  const type0 = t('embeddings.token_type_embeddings.weight').subarray(0, hidden);
  for (let i = 0; i < positions.length; i++) positions[i]! += type0[i % hidden]!;
  const words = g.weight(
    'embeddings.word_embeddings.weight',
    [tensors.get('embeddings.word_embeddings.weight')!.shape[0]!, hidden],
    t('embeddings.word_embeddings.weight'),
  );
  const posTable = g.weight('embeddings.position_plus_type', [config.max_position_embeddings, hidden], positions);
  const seqLen = g.op('Shape', [ids], { start: 1, end: 2 });
  const pos = g.op('Slice', [posTable, g.ints([0]), seqLen, g.ints([0])]);
  let x = layerNorm(g.op('Add', [g.op('Gather', [words, ids], { axis: 0 }), pos]), 'embeddings.LayerNorm');

  // The additive attention mask: 0 where a token is real, -10000 on padding, [batch, 1, 1, seq].
  const maskF = g.op('Cast', [mask], { to: FLOAT });
  const maskBias = g.op('Mul', [
    g.op('Sub', [g.scalar(1), g.op('Unsqueeze', [maskF, g.ints([1, 2])])]),
    g.scalar(-10000),
  ]);
  const splitHeads = g.ints([0, 0, heads, headSize]);
  const mergeHeads = g.ints([0, 0, hidden]);
  const scale = g.scalar(Math.sqrt(headSize));
  const sqrt2 = g.scalar(Math.SQRT2);
  const one = g.scalar(1);
  const half = g.scalar(0.5);

  for (let l = 0; l < config.num_hidden_layers; l++) {
    const p = `encoder.layer.${l}`;
    const heads4 = (name: string, perm: number[]) =>
      g.op('Transpose', [g.op('Reshape', [linear(x, `${p}.attention.self.${name}`, hidden, hidden), splitHeads])], {
        perm,
      });
    const q = heads4('query', [0, 2, 1, 3]);
    const k = heads4('key', [0, 2, 3, 1]);
    const v = heads4('value', [0, 2, 1, 3]);
    const scores = g.op('Add', [g.op('Div', [g.op('MatMul', [q, k]), scale]), maskBias]);
    const probs = g.op('Softmax', [scores], { axis: -1 });
    const context = g.op('Reshape', [
      g.op('Transpose', [g.op('MatMul', [probs, v])], { perm: [0, 2, 1, 3] }),
      mergeHeads,
    ]);
    const attended = linear(context, `${p}.attention.output.dense`, hidden, hidden);
    x = layerNorm(g.op('Add', [attended, x]), `${p}.attention.output.LayerNorm`);

    const inner = linear(x, `${p}.intermediate.dense`, hidden, config.intermediate_size);
    // GELU with erf, as BERT's "gelu": x * 0.5 * (1 + erf(x / sqrt 2)).
    const gelu = g.op('Mul', [
      g.op('Mul', [inner, g.op('Add', [g.op('Erf', [g.op('Div', [inner, sqrt2])]), one])]),
      half,
    ]);
    const out = linear(gelu, `${p}.output.dense`, config.intermediate_size, hidden);
    x = layerNorm(g.op('Add', [out, x]), `${p}.output.LayerNorm`);
  }

  // Mean pooling over the real tokens (sentence-transformers' Pooling, mean mode).
  const mask3 = g.op('Unsqueeze', [maskF, g.ints([2])]);
  const summed = g.op('ReduceSum', [g.op('Mul', [x, mask3]), g.ints([1])], { keepdims: 0 });
  const counts = g.op('Max', [g.op('ReduceSum', [maskF, g.ints([1])], { keepdims: 1 }), g.scalar(1e-9)]);
  g.output(g.op('Div', [summed, counts]), 'pooled', FLOAT, ['batch', hidden]);
  return g.encode('all-MiniLM-L6-v2');
}
