/**
 * Builds a tiny BERT-shaped ONNX model with random weights, plus a WordPiece tokenizer, in a folder
 * that transformers.js can load offline. The protobuf is encoded by hand (a handful of onnx.proto
 * fields), so no extra package is needed. It proves loading, batching and pooling, never semantics.
 *
 * Graph: last_hidden_state = Tanh(MatMul(Gather(E, input_ids) + Gather(T, token_type_ids), W)),
 * with attention_mask accepted (as BERT does) but unused inside: pooling must apply it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// ---- minimal protobuf writer -------------------------------------------------------------

function varint(n: number | bigint): number[] {
  let v = BigInt(n);
  if (v < 0n) v += 1n << 64n; // two's complement for negative int64
  const out: number[] = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) b |= 0x80;
    out.push(b);
  } while (v > 0n);
  return out;
}

const tag = (field: number, wire: number) => varint((field << 3) | wire);
const concat = (parts: (number[] | Uint8Array)[]) => {
  const total = parts.reduce((s, p) => s + p.length, 0);
  const out = new Uint8Array(total);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
};
const int = (field: number, n: number | bigint) => concat([tag(field, 0), varint(n)]);
const bytes = (field: number, b: Uint8Array) => concat([tag(field, 2), varint(b.length), b]);
const str = (field: number, s: string) => bytes(field, new TextEncoder().encode(s));
const msg = (field: number, ...parts: Uint8Array[]) => bytes(field, concat(parts));

// onnx.proto field numbers and enums used below.
const FLOAT = 1;
const INT64 = 7;
const ATTR_INT = 2;

function tensorType(elemType: number, dims: (number | string)[]): Uint8Array {
  const shapeDims = dims.map((d) => (typeof d === 'number' ? msg(1, int(1, d)) : msg(1, str(2, d))));
  // TypeProto.tensor_type(1) { elem_type(1), shape(2) { dim(1)* } }
  return msg(1, int(1, elemType), msg(2, ...shapeDims));
}

const valueInfo = (name: string, elemType: number, dims: (number | string)[]) =>
  concat([str(1, name), bytes(2, tensorType(elemType, dims))]);

function floatTensor(name: string, dims: number[], values: Float32Array): Uint8Array {
  const raw = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
  return concat([...dims.map((d) => int(1, d)), int(2, FLOAT), str(8, name), bytes(9, raw)]);
}

function node(op: string, inputs: string[], outputs: string[], attrs: Uint8Array[] = []): Uint8Array {
  return concat([
    ...inputs.map((i) => str(1, i)),
    ...outputs.map((o) => str(2, o)),
    str(3, `${op}_${outputs[0]}`),
    str(4, op),
    ...attrs.map((a) => bytes(5, a)),
  ]);
}

const intAttr = (name: string, v: number) => concat([str(1, name), int(3, v), int(20, ATTR_INT)]);

// ---- deterministic random weights ----------------------------------------------------------

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomMatrix(rand: () => number, n: number): Float32Array {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = (rand() - 0.5) * 2;
  return out;
}

// ---- vocabulary and tokenizer --------------------------------------------------------------

const SPECIALS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
const WORDS = ['the', 'a', 'function', 'class', 'return', 'value', 'parse', 'config', 'file', 'search', 'index'];

export function tinyVocab(): string[] {
  const letters = 'abcdefghijklmnopqrstuvwxyz0123456789'.split('');
  const punct = '.,;:!?()[]{}<>=+-*/_\'"#&%$@|\\^~`'.split('');
  return [...SPECIALS, ...WORDS, ...letters, ...letters.map((l) => `##${l}`), ...punct];
}

function tokenizerJson(vocab: string[]): unknown {
  const ids = Object.fromEntries(vocab.map((t, i) => [t, i]));
  const special = (t: string) => ({
    id: ids[t],
    content: t,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIALS.map(special),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [ids['[CLS]']], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [ids['[SEP]']], tokens: ['[SEP]'] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab: ids },
  };
}

export interface TinyModelOptions {
  hidden?: number;
  seed?: number;
  /** Longest token sequence the tokenizer keeps (truncation). */
  maxLength?: number;
}

/** Encodes the ONNX graph described at the top of this file. */
export function tinyOnnxModel(vocabSize: number, hidden: number, seed: number): Uint8Array {
  const rand = mulberry32(seed);
  const E = randomMatrix(rand, vocabSize * hidden);
  const T = randomMatrix(rand, 2 * hidden);
  const W = randomMatrix(rand, hidden * hidden);
  const graph = concat([
    bytes(1, node('Gather', ['E', 'input_ids'], ['tok'], [intAttr('axis', 0)])),
    bytes(1, node('Gather', ['T', 'token_type_ids'], ['typ'], [intAttr('axis', 0)])),
    bytes(1, node('Add', ['tok', 'typ'], ['emb'])),
    bytes(1, node('MatMul', ['emb', 'W'], ['proj'])),
    bytes(1, node('Tanh', ['proj'], ['last_hidden_state'])),
    str(2, 'tiny_bert'),
    bytes(5, floatTensor('E', [vocabSize, hidden], E)),
    bytes(5, floatTensor('T', [2, hidden], T)),
    bytes(5, floatTensor('W', [hidden, hidden], W)),
    bytes(11, valueInfo('input_ids', INT64, ['batch', 'sequence'])),
    bytes(11, valueInfo('attention_mask', INT64, ['batch', 'sequence'])),
    bytes(11, valueInfo('token_type_ids', INT64, ['batch', 'sequence'])),
    bytes(12, valueInfo('last_hidden_state', FLOAT, ['batch', 'sequence', hidden])),
  ]);
  // ModelProto: ir_version(1), producer_name(2), graph(7), opset_import(8) { domain(1), version(2) }
  return concat([int(1, 8), str(2, 'tkoma-ref-tests'), bytes(7, graph), msg(8, str(1, ''), int(2, 13))]);
}

/**
 * Writes config.json, tokenizer.json, tokenizer_config.json and onnx/model.onnx into `dir`
 * (created if needed). Returns the hidden size, which is the embedding dimension.
 */
export function writeTinyModel(dir: string, opts: TinyModelOptions = {}): { dimension: number; vocabSize: number } {
  const hidden = opts.hidden ?? 32;
  const vocab = tinyVocab();
  mkdirSync(join(dir, 'onnx'), { recursive: true });
  writeFileSync(join(dir, 'onnx', 'model.onnx'), tinyOnnxModel(vocab.length, hidden, opts.seed ?? 42));
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(tokenizerJson(vocab)));
  writeFileSync(
    join(dir, 'tokenizer_config.json'),
    JSON.stringify({
      tokenizer_class: 'BertTokenizer',
      do_lower_case: true,
      model_max_length: opts.maxLength ?? 128,
      clean_up_tokenization_spaces: true,
      pad_token: '[PAD]',
      unk_token: '[UNK]',
      cls_token: '[CLS]',
      sep_token: '[SEP]',
      mask_token: '[MASK]',
    }),
  );
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({
      architectures: ['BertModel'],
      model_type: 'bert',
      hidden_size: hidden,
      vocab_size: vocab.length,
      num_attention_heads: 1,
      num_hidden_layers: 1,
      max_position_embeddings: 512,
      type_vocab_size: 2,
    }),
  );
  return { dimension: hidden, vocabSize: vocab.length };
}
