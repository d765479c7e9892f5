/**
 * A random-weight ONNX model with exactly a BERT encoder's architecture (by default
 * bge-small-en-v1.5's: 12 layers, hidden 384, 12 heads, intermediate 1536, vocab 30522, 512
 * positions), fp32 or int8 (dynamic quantisation as onnxruntime's quantize_dynamic writes it:
 * DynamicQuantizeLinear + MatMulInteger), plus a WordPiece tokenizer of the same vocabulary size.
 * Compute depends on shape, not weights, so it measures that model's throughput honestly; its
 * vectors mean nothing. The protobuf is written by hand (a handful of onnx.proto fields).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { attrFloat, attrInt, attrInts, bytes, concat, FLOAT, floats, INT8, INT64, int, msg, mulberry32, node, SPECIAL_TOKENS, str, tensor, valueInfo, wordPieceTokenizerJson } from '../../test/helpers/onnx-proto.js';

export interface BertShape {
  layers: number;
  hidden: number;
  heads: number;
  intermediate: number;
  vocab: number;
  positions: number;
}

export const BGE_SMALL: BertShape = { layers: 12, hidden: 384, heads: 12, intermediate: 1536, vocab: 30522, positions: 512 };

const int64s = (name: string, dims: number[], v: bigint[]): Uint8Array => tensor(name, dims, INT64, new Uint8Array(new BigInt64Array(v).buffer));

/** Builds the graph; `quantized` turns every weight MatMul into DynamicQuantizeLinear + MatMulInteger. */
export function bertOnnx(shape: BertShape, opts: { quantized?: boolean; seed?: number } = {}): Uint8Array {
  const rand = mulberry32(opts.seed ?? 7);
  const random = (n: number, scale: number): Float32Array => {
    const out = new Float32Array(n);
    for (let i = 0; i < n; i++) out[i] = (rand() - 0.5) * 2 * scale;
    return out;
  };
  const { hidden: H, heads: NH, intermediate: I, layers: L } = shape;
  const HD = H / NH;
  const nodes: Uint8Array[] = [];
  const inits: Uint8Array[] = [];
  const add = (n: Uint8Array): void => void nodes.push(n);
  const weight = (name: string, dims: number[], scale = 0.05): string => {
    inits.push(floats(name, dims, random(dims.reduce((a, b) => a * b, 1), scale)));
    return name;
  };
  const constant = (name: string, v: number): string => {
    inits.push(floats(name, [], Float32Array.of(v)));
    return name;
  };
  const shapeConst = (name: string, v: bigint[]): string => {
    inits.push(int64s(name, [v.length], v));
    return name;
  };
  /** x [.., k] times a weight [k, n] (+ bias). */
  const dense = (x: string, k: number, n: number, out: string): string => {
    const b = weight(`${out}.b`, [n], 0.01);
    if (!opts.quantized) {
      const w = weight(`${out}.w`, [k, n], 1 / Math.sqrt(k));
      add(node('MatMul', [x, w], [`${out}.mm`]));
    } else {
      // Weights stored as int8 with a scale, as quantize_dynamic writes them.
      const q = new Int8Array(k * n);
      for (let i = 0; i < q.length; i++) q[i] = Math.round((rand() - 0.5) * 254);
      inits.push(tensor(`${out}.wq`, [k, n], INT8, new Uint8Array(q.buffer)));
      inits.push(tensor(`${out}.wz`, [], INT8, new Uint8Array(1)));
      const ws = constant(`${out}.ws`, 1 / (127 * Math.sqrt(k)));
      add(node('DynamicQuantizeLinear', [x], [`${out}.xq`, `${out}.xs`, `${out}.xz`]));
      add(node('MatMulInteger', [`${out}.xq`, `${out}.wq`, `${out}.xz`, `${out}.wz`], [`${out}.i32`]));
      add(node('Cast', [`${out}.i32`], [`${out}.f`], [attrInt('to', FLOAT)]));
      add(node('Mul', [`${out}.xs`, ws], [`${out}.scale`]));
      add(node('Mul', [`${out}.f`, `${out}.scale`], [`${out}.mm`]));
    }
    add(node('Add', [`${out}.mm`, b], [out]));
    return out;
  };
  const layerNorm = (x: string, out: string): string => {
    const g = `${out}.g`;
    inits.push(floats(g, [H], new Float32Array(H).fill(1)));
    const b = weight(`${out}.beta`, [H], 0.01);
    add(node('LayerNormalization', [x, g, b], [out], [attrInt('axis', -1), attrFloat('epsilon', 1e-12)]));
    return out;
  };

  // Embeddings: word + position + token type, then LayerNorm.
  const wordE = weight('emb.word', [shape.vocab, H], 0.05);
  const posE = weight('emb.pos', [shape.positions, H], 0.05);
  const typeE = weight('emb.type', [2, H], 0.05);
  add(node('Shape', ['input_ids'], ['ids.shape']));
  inits.push(int64s('one_idx', [], [1n]));
  inits.push(int64s('zero_s', [], [0n]));
  inits.push(int64s('one_s', [], [1n]));
  add(node('Gather', ['ids.shape', 'one_idx'], ['seq_len'], [attrInt('axis', 0)]));
  add(node('Range', ['zero_s', 'seq_len', 'one_s'], ['positions']));
  add(node('Gather', [wordE, 'input_ids'], ['e.word'], [attrInt('axis', 0)]));
  add(node('Gather', [posE, 'positions'], ['e.pos'], [attrInt('axis', 0)]));
  add(node('Gather', [typeE, 'token_type_ids'], ['e.type'], [attrInt('axis', 0)]));
  add(node('Add', ['e.word', 'e.pos'], ['e.sum1']));
  add(node('Add', ['e.sum1', 'e.type'], ['e.sum']));
  let x = layerNorm('e.sum', 'e.ln');

  // Attention mask → additive bias [B, 1, 1, S].
  add(node('Cast', ['attention_mask'], ['mask.f'], [attrInt('to', FLOAT)]));
  add(node('Sub', [constant('c.one', 1), 'mask.f'], ['mask.inv']));
  add(node('Mul', ['mask.inv', constant('c.neg', -10000)], ['mask.neg']));
  add(node('Unsqueeze', ['mask.neg', shapeConst('axes12', [1n, 2n])], ['mask.bias']));
  const split = shapeConst('shape.split', [0n, 0n, BigInt(NH), BigInt(HD)]);
  const merge = shapeConst('shape.merge', [0n, 0n, BigInt(H)]);
  const scale = constant('c.scale', 1 / Math.sqrt(HD));

  for (let l = 0; l < L; l++) {
    const p = `l${l}`;
    const input = x;
    const heads = (name: string, perm: number[]): string => {
      const d = dense(x, H, H, `${p}.${name}`);
      add(node('Reshape', [d, split], [`${p}.${name}.r`]));
      add(node('Transpose', [`${p}.${name}.r`], [`${p}.${name}.t`], [attrInts('perm', perm)]));
      return `${p}.${name}.t`;
    };
    const q = heads('q', [0, 2, 1, 3]);
    const k = heads('k', [0, 2, 3, 1]);
    const v = heads('v', [0, 2, 1, 3]);
    add(node('MatMul', [q, k], [`${p}.scores`]));
    add(node('Mul', [`${p}.scores`, scale], [`${p}.scaled`]));
    add(node('Add', [`${p}.scaled`, 'mask.bias'], [`${p}.masked`]));
    add(node('Softmax', [`${p}.masked`], [`${p}.probs`], [attrInt('axis', -1)]));
    add(node('MatMul', [`${p}.probs`, v], [`${p}.ctx`]));
    add(node('Transpose', [`${p}.ctx`], [`${p}.ctx.t`], [attrInts('perm', [0, 2, 1, 3])]));
    add(node('Reshape', [`${p}.ctx.t`, merge], [`${p}.ctx.m`]));
    x = `${p}.ctx.m`;
    const o = dense(x, H, H, `${p}.o`);
    add(node('Add', [o, input], [`${p}.res1`]));
    const a = layerNorm(`${p}.res1`, `${p}.ln1`);
    x = a;
    const f1 = dense(x, H, I, `${p}.ff1`);
    // GELU (erf form, as BERT uses)
    add(node('Div', [f1, constant(`${p}.sqrt2`, Math.SQRT2)], [`${p}.g.d`]));
    add(node('Erf', [`${p}.g.d`], [`${p}.g.e`]));
    add(node('Add', [`${p}.g.e`, constant(`${p}.g.one`, 1)], [`${p}.g.a`]));
    add(node('Mul', [f1, `${p}.g.a`], [`${p}.g.m`]));
    add(node('Mul', [`${p}.g.m`, constant(`${p}.g.half`, 0.5)], [`${p}.gelu`]));
    const f2 = dense(`${p}.gelu`, I, H, `${p}.ff2`);
    add(node('Add', [f2, a], [`${p}.res2`]));
    x = layerNorm(`${p}.res2`, `l${l}.in`);
  }
  add(node('Identity', [x], ['last_hidden_state']));

  const graph = concat([
    ...nodes.map((n) => bytes(1, n)),
    str(2, 'bert_shaped'),
    ...inits.map((t) => bytes(5, t)),
    bytes(11, valueInfo('input_ids', INT64, ['batch', 'sequence'])),
    bytes(11, valueInfo('attention_mask', INT64, ['batch', 'sequence'])),
    bytes(11, valueInfo('token_type_ids', INT64, ['batch', 'sequence'])),
    bytes(12, valueInfo('last_hidden_state', FLOAT, ['batch', 'sequence', H])),
  ]);
  return concat([int(1, 8), str(2, 'tkoma-ref-bench'), bytes(7, graph), msg(8, str(1, ''), int(2, 17))]);
}

/** WordPiece vocabulary of `size` entries whose pieces split text about as often as a real one (2–3 chars a piece). */
export function shapedVocab(size: number): string[] {
  const letters = 'abcdefghijklmnopqrstuvwxyz'.split('');
  const digits = '0123456789'.split('');
  const punct = '.,;:!?()[]{}<>=+-*/_\'"#&%$@|\\^~`'.split('');
  const out = new Set<string>([...SPECIAL_TOKENS, ...letters, ...digits, ...punct, ...letters.map((l) => `##${l}`), ...digits.map((d) => `##${d}`)]);
  for (const a of letters) for (const b of letters) out.add(a + b);
  for (const a of letters) for (const b of letters) out.add(`##${a}${b}`);
  outer: for (const a of letters)
    for (const b of letters)
      for (const c of letters) {
        if (out.size >= size) break outer;
        out.add(a + b + c);
        if (out.size >= size) break outer;
        out.add(`##${a}${b}${c}`);
      }
  let i = 0;
  while (out.size < size) out.add(`[unused${i++}]`);
  return [...out].slice(0, size);
}

/** Writes a model folder transformers.js loads offline: config, tokenizer, onnx/model.onnx or model_quantized.onnx. */
export function writeBertShapedModel(dir: string, shape: BertShape = BGE_SMALL, opts: { quantized?: boolean; maxLength?: number } = {}): string {
  const vocab = shapedVocab(shape.vocab);
  mkdirSync(join(dir, 'onnx'), { recursive: true });
  writeFileSync(join(dir, 'onnx', opts.quantized ? 'model_quantized.onnx' : 'model.onnx'), bertOnnx(shape, opts));
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(wordPieceTokenizerJson(vocab)));
  writeFileSync(
    join(dir, 'tokenizer_config.json'),
    JSON.stringify({ tokenizer_class: 'BertTokenizer', do_lower_case: true, model_max_length: opts.maxLength ?? shape.positions, pad_token: '[PAD]', unk_token: '[UNK]', cls_token: '[CLS]', sep_token: '[SEP]', mask_token: '[MASK]' }),
  );
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({
      architectures: ['BertModel'],
      model_type: 'bert',
      hidden_size: shape.hidden,
      vocab_size: shape.vocab,
      num_attention_heads: shape.heads,
      num_hidden_layers: shape.layers,
      intermediate_size: shape.intermediate,
      max_position_embeddings: shape.positions,
      type_vocab_size: 2,
    }),
  );
  // bge pools on CLS (sentence-transformers' pooling config, as the real model ships it).
  mkdirSync(join(dir, '1_Pooling'), { recursive: true });
  writeFileSync(join(dir, '1_Pooling', 'config.json'), JSON.stringify({ word_embedding_dimension: shape.hidden, pooling_mode_cls_token: true, pooling_mode_mean_tokens: false }));
  return dir;
}
