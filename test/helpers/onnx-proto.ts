/**
 * A minimal onnx.proto writer (the handful of fields a BERT-like graph needs) and a WordPiece
 * tokenizer.json, shared by the tiny test model (test/helpers/tiny-model.ts) and the bench's
 * model of a real architecture (bench/lib/bert-onnx.ts). Encoded by hand, so no package is needed.
 */

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

const tag = (field: number, wire: number): number[] => varint((field << 3) | wire);

export function concat(parts: (number[] | Uint8Array)[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

export const int = (field: number, n: number | bigint): Uint8Array => concat([tag(field, 0), varint(n)]);
export const bytes = (field: number, b: Uint8Array): Uint8Array => concat([tag(field, 2), varint(b.length), b]);
export const str = (field: number, s: string): Uint8Array => bytes(field, new TextEncoder().encode(s));
const f32 = (field: number, v: number): Uint8Array => {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setFloat32(0, v, true);
  return concat([tag(field, 5), b]);
};
export const msg = (field: number, ...parts: Uint8Array[]): Uint8Array => bytes(field, concat(parts));

// onnx.proto TensorProto.DataType values used here.
export const FLOAT = 1;
export const INT8 = 3;
export const INT64 = 7;

function tensorType(elemType: number, dims: (number | string)[]): Uint8Array {
  const shapeDims = dims.map((d) => (typeof d === 'number' ? msg(1, int(1, d)) : msg(1, str(2, d))));
  // TypeProto.tensor_type(1) { elem_type(1), shape(2) { dim(1)* } }
  return msg(1, int(1, elemType), msg(2, ...shapeDims));
}

export const valueInfo = (name: string, elemType: number, dims: (number | string)[]): Uint8Array => concat([str(1, name), bytes(2, tensorType(elemType, dims))]);

export function tensor(name: string, dims: number[], elemType: number, raw: Uint8Array): Uint8Array {
  return concat([...dims.map((d) => int(1, d)), int(2, elemType), str(8, name), bytes(9, raw)]);
}

export const floats = (name: string, dims: number[], v: Float32Array): Uint8Array => tensor(name, dims, FLOAT, new Uint8Array(v.buffer, v.byteOffset, v.byteLength));

export const attrInt = (name: string, v: number): Uint8Array => concat([str(1, name), int(3, v), int(20, 2)]);
export const attrFloat = (name: string, v: number): Uint8Array => concat([str(1, name), f32(2, v), int(20, 1)]);
export const attrInts = (name: string, vs: number[]): Uint8Array => concat([str(1, name), ...vs.map((v) => int(8, v)), int(20, 7)]);

/** A NodeProto; its name comes from its first output, which is unique in a graph. */
export function node(op: string, inputs: string[], outputs: string[], attrs: Uint8Array[] = []): Uint8Array {
  return concat([...inputs.map((i) => str(1, i)), ...outputs.map((o) => str(2, o)), str(3, `${op}_${outputs[0]}`), str(4, op), ...attrs.map((a) => bytes(5, a))]);
}

/** Deterministic random numbers in [0, 1) for weights. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const SPECIAL_TOKENS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];

/** A BERT WordPiece tokenizer.json over `vocab` (which holds SPECIAL_TOKENS). */
export function wordPieceTokenizerJson(vocab: string[]): unknown {
  const ids = Object.fromEntries(vocab.map((t, i) => [t, i]));
  const special = (t: string) => ({ id: ids[t], content: t, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL_TOKENS.map(special),
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
