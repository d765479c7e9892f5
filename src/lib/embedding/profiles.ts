/**
 * How each family of retrieval models wants to be fed: the pooling its training used and the
 * prefixes it expects on queries and documents. Getting these wrong silently degrades ranking,
 * so they live in one pure, tested table shared by every provider (Ollama and OpenAI-compatible
 * servers serve the same families under other names).
 */

export type Pooling = 'mean' | 'cls';

export interface ModelProfile {
  /** Which family matched, for diagnostics. */
  family: string;
  pooling: Pooling;
  queryPrefix: string;
  documentPrefix: string;
}

const RETRIEVAL_INSTRUCTION = 'Represent this sentence for searching relevant passages: ';

interface Rule extends ModelProfile {
  test: RegExp;
}

/** First match wins, so the more specific patterns come first. */
const RULES: Rule[] = [
  // bge-m3 is trained without an instruction and pools on CLS.
  { family: 'bge-m3', test: /bge-m3/, pooling: 'cls', queryPrefix: '', documentPrefix: '' },
  {
    family: 'bge-zh',
    test: /bge-[a-z]+-zh/,
    pooling: 'cls',
    queryPrefix: '为这个句子生成表示以用于检索相关文章：',
    documentPrefix: '',
  },
  { family: 'bge', test: /bge-/, pooling: 'cls', queryPrefix: RETRIEVAL_INSTRUCTION, documentPrefix: '' },
  {
    family: 'nomic',
    test: /nomic-embed-text/,
    pooling: 'mean',
    queryPrefix: 'search_query: ',
    documentPrefix: 'search_document: ',
  },
  // multilingual-e5-*-instruct wants a task instruction on queries and nothing on passages.
  {
    family: 'e5-instruct',
    test: /e5-[a-z]+-instruct/,
    pooling: 'mean',
    queryPrefix: 'Instruct: Given a web search query, retrieve relevant passages that answer the query\nQuery: ',
    documentPrefix: '',
  },
  { family: 'e5', test: /(^|[/_-])e5-/, pooling: 'mean', queryPrefix: 'query: ', documentPrefix: 'passage: ' },
  {
    family: 'arctic-embed',
    test: /arctic-embed/,
    pooling: 'cls',
    queryPrefix: RETRIEVAL_INSTRUCTION,
    documentPrefix: '',
  },
  {
    family: 'mxbai-embed',
    test: /mxbai-embed/,
    pooling: 'cls',
    queryPrefix: RETRIEVAL_INSTRUCTION,
    documentPrefix: '',
  },
  { family: 'gte', test: /(^|[/_-])gte-/, pooling: 'mean', queryPrefix: '', documentPrefix: '' },
  { family: 'minilm', test: /minilm/, pooling: 'mean', queryPrefix: '', documentPrefix: '' },
  { family: 'mpnet', test: /mpnet/, pooling: 'mean', queryPrefix: '', documentPrefix: '' },
  { family: 'jina', test: /jina-embeddings/, pooling: 'mean', queryPrefix: '', documentPrefix: '' },
];

/** Unknown models get what sentence-transformers does by default: mean pooling, no prefixes. */
const FALLBACK: ModelProfile = { family: 'generic', pooling: 'mean', queryPrefix: '', documentPrefix: '' };

/** The profile for a model name (a Hugging Face id, an Ollama tag, a folder name …). */
export function modelProfile(model: string): ModelProfile {
  const name = model.toLowerCase();
  for (const { test, ...profile } of RULES) {
    if (test.test(name)) return profile;
  }
  return { ...FALLBACK };
}
