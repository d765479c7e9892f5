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

import { attrInt, bytes, concat, FLOAT, floats, INT64, int, msg, mulberry32, node, SPECIAL_TOKENS, str, valueInfo, wordPieceTokenizerJson } from './onnx-proto.js';

function randomMatrix(rand: () => number, n: number): Float32Array {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = (rand() - 0.5) * 2;
  return out;
}

// ---- vocabulary and tokenizer --------------------------------------------------------------

const WORDS = ['the', 'a', 'function', 'class', 'return', 'value', 'parse', 'config', 'file', 'search', 'index'];

export function tinyVocab(): string[] {
  const letters = 'abcdefghijklmnopqrstuvwxyz0123456789'.split('');
  const punct = '.,;:!?()[]{}<>=+-*/_\'"#&%$@|\\^~`'.split('');
  return [...SPECIAL_TOKENS, ...WORDS, ...letters, ...letters.map((l) => `##${l}`), ...punct];
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
    bytes(1, node('Gather', ['E', 'input_ids'], ['tok'], [attrInt('axis', 0)])),
    bytes(1, node('Gather', ['T', 'token_type_ids'], ['typ'], [attrInt('axis', 0)])),
    bytes(1, node('Add', ['tok', 'typ'], ['emb'])),
    bytes(1, node('MatMul', ['emb', 'W'], ['proj'])),
    bytes(1, node('Tanh', ['proj'], ['last_hidden_state'])),
    str(2, 'tiny_bert'),
    bytes(5, floats('E', [vocabSize, hidden], E)),
    bytes(5, floats('T', [2, hidden], T)),
    bytes(5, floats('W', [hidden, hidden], W)),
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
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(wordPieceTokenizerJson(vocab)));
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
