import type { CodeFixture } from './fixtures.js';

/** TypeScript, TSX, JavaScript, Python, Rust and Go snippets. */
export const WEB_AND_SYSTEMS: CodeFixture[] = [  {
    path: 'src/config.ts',
    language: 'typescript',
    code: `import { readFile } from 'node:fs/promises';
import type { Stats } from 'node:fs';

/** Options accepted by the loader. */
export interface LoaderOptions {
  strict: boolean;
  encoding?: BufferEncoding;
}

export type ConfigValue = string | number | boolean;

export enum Mode {
  Fast,
  Safe,
}

/**
 * Parses a config file into a map.
 * Lines starting with # are comments.
 */
export async function parseConfig(path: string, opts: LoaderOptions): Promise<Map<string, ConfigValue>> {
  const text = await readFile(path, opts.encoding ?? 'utf8');
  const out = new Map<string, ConfigValue>();
  for (const line of text.split('\\n')) {
    if (line.startsWith('#') || !line.includes('=')) continue;
    const [k, v] = line.split('=', 2);
    out.set(k.trim(), v.trim());
  }
  return out;
}

export const formatValue = (v: ConfigValue): string => String(v);

export class ConfigStore {
  private values = new Map<string, ConfigValue>();

  constructor(private readonly mode: Mode) {}

  get(key: string): ConfigValue | undefined {
    return this.values.get(key);
  }

  set(key: string, value: ConfigValue): void {
    if (this.mode === Mode.Safe && this.values.has(key)) {
      throw new Error(\`duplicate key \${key}\`);
    }
    this.values.set(key, value);
  }

  async load(path: string): Promise<void> {
    const parsed = await parseConfig(path, { strict: true });
    for (const [k, v] of parsed) this.set(k, v);
  }
}

const DEFAULT_STORE = new ConfigStore(Mode.Fast);
export default DEFAULT_STORE;
`,
    symbols: {
      LoaderOptions: 'interface',
      ConfigValue: 'type',
      Mode: 'enum',
      parseConfig: 'function',
      formatValue: 'function',
      ConfigStore: 'class',
    },
    docOf: ['parseConfig', ' * Parses a config file into a map.'],
    bigClass: { name: 'ConfigStore', kind: 'class', methods: ['get', 'set', 'load'] },
  },  {
    path: 'src/App.tsx',
    language: 'tsx',
    code: `import React, { useState } from 'react';

type Props = { title: string; items: string[] };

/** Renders a filterable list. */
export function FilterList({ title, items }: Props) {
  const [query, setQuery] = useState('');
  const shown = items.filter((i) => i.toLowerCase().includes(query.toLowerCase()));
  return (
    <section>
      <h2>{title}</h2>
      <input value={query} onChange={(e) => setQuery(e.target.value)} />
      <ul>{shown.map((i) => <li key={i}>{i}</li>)}</ul>
    </section>
  );
}

export const Badge = ({ count }: { count: number }) => <span className="badge">{count}</span>;

export class Counter extends React.Component<{ start: number }, { n: number }> {
  state = { n: this.props.start };

  increment = () => {
    this.setState((s) => ({ n: s.n + 1 }));
  };

  componentDidMount() {
    document.title = \`Count: \${this.state.n}\`;
  }

  render() {
    return <button onClick={this.increment}>{this.state.n}</button>;
  }
}
`,
    symbols: { Props: 'type', FilterList: 'function', Badge: 'function', Counter: 'class' },
    docOf: ['FilterList', '/** Renders a filterable list. */'],
    bigClass: { name: 'Counter', kind: 'class', methods: ['componentDidMount', 'render'] },
  },  {
    path: 'lib/queue.js',
    language: 'javascript',
    code: `'use strict';
const { EventEmitter } = require('events');

/**
 * Creates a task with a retry budget.
 * @param {Function} fn
 */
function createTask(fn, retries = 3) {
  return { fn, retries, attempts: 0 };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

class TaskQueue extends EventEmitter {
  constructor(concurrency) {
    super();
    this.concurrency = concurrency;
    this.running = 0;
    this.queue = [];
  }

  push(task) {
    this.queue.push(task);
    process.nextTick(() => this.next());
  }

  next() {
    while (this.running < this.concurrency && this.queue.length) {
      const task = this.queue.shift();
      this.running++;
      task.fn().finally(() => {
        this.running--;
        this.emit('done', task);
        this.next();
      });
    }
  }
}

module.exports = { TaskQueue, createTask, sleep };
`,
    symbols: { createTask: 'function', sleep: 'function', TaskQueue: 'class' },
    docOf: ['createTask', ' * Creates a task with a retry budget.'],
    bigClass: { name: 'TaskQueue', kind: 'class', methods: ['constructor', 'push', 'next'] },
  },  {
    path: 'pkg/cache.py',
    language: 'python',
    code: `"""A tiny LRU cache."""
from collections import OrderedDict
import functools

MAX_SIZE = 128


def make_key(*args, **kwargs):
    """Build a hashable key from call arguments."""
    return args + tuple(sorted(kwargs.items()))


class LRUCache:
    """Least-recently-used cache with a fixed capacity."""

    def __init__(self, capacity: int = MAX_SIZE):
        self.capacity = capacity
        self.data = OrderedDict()

    def get(self, key):
        if key not in self.data:
            return None
        self.data.move_to_end(key)
        return self.data[key]

    def put(self, key, value):
        self.data[key] = value
        self.data.move_to_end(key)
        if len(self.data) > self.capacity:
            self.data.popitem(last=False)

    @property
    def size(self) -> int:
        return len(self.data)


@functools.lru_cache(maxsize=None)
def cached_square(n: int) -> int:
    return n * n


if __name__ == "__main__":
    c = LRUCache(2)
    c.put("a", 1)
    print(c.get("a"))
`,
    symbols: { make_key: 'function', LRUCache: 'class', cached_square: 'function' },
    docOf: ['cached_square', '@functools.lru_cache(maxsize=None)'],
    bigClass: { name: 'LRUCache', kind: 'class', methods: ['__init__', 'get', 'put', 'size'] },
  },  {
    path: 'src/shapes.rs',
    language: 'rust',
    code: `use std::fmt;

/// A point in 2D space.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

pub enum Shape {
    Circle { center: Point, radius: f64 },
    Rect { min: Point, max: Point },
}

pub type Area = f64;

pub trait HasArea {
    fn area(&self) -> Area;
}

impl Shape {
    /// Area of the shape.
    pub fn area(&self) -> Area {
        match self {
            Shape::Circle { radius, .. } => std::f64::consts::PI * radius * radius,
            Shape::Rect { min, max } => (max.x - min.x) * (max.y - min.y),
        }
    }

    pub fn translate(&mut self, dx: f64, dy: f64) {
        match self {
            Shape::Circle { center, .. } => { center.x += dx; center.y += dy; }
            Shape::Rect { min, max } => { min.x += dx; max.x += dx; min.y += dy; max.y += dy; }
        }
    }
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {})", self.x, self.y)
    }
}

/// Sums the areas of all shapes.
pub fn total_area(shapes: &[Shape]) -> Area {
    shapes.iter().map(|s| s.area()).sum()
}

mod tests {
    use super::*;

    #[test]
    fn circle_area() {
        let c = Shape::Circle { center: Point { x: 0.0, y: 0.0 }, radius: 1.0 };
        assert!((c.area() - std::f64::consts::PI).abs() < 1e-9);
    }
}
`,
    symbols: { Point: 'struct', Shape: 'impl', Area: 'type', HasArea: 'interface', total_area: 'function', 'tests.circle_area': 'test' },
    docOf: ['Point', '/// A point in 2D space.'],
    bigClass: { name: 'Shape', kind: 'impl', methods: ['area', 'translate'] },
  },  {
    path: 'server/handler.go',
    language: 'go',
    code: `package server

import (
	"encoding/json"
	"net/http"
)

// Handler serves the JSON API.
type Handler struct {
	store Store
	log   Logger
}

// Store persists items.
type Store interface {
	Get(id string) (Item, error)
	Put(item Item) error
}

type Item struct {
	ID   string \`json:"id"\`
	Name string \`json:"name"\`
}

// NewHandler wires a handler.
func NewHandler(s Store, l Logger) *Handler {
	return &Handler{store: s, log: l}
}

// ServeHTTP dispatches by method.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet:
		item, err := h.store.Get(r.URL.Query().Get("id"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		json.NewEncoder(w).Encode(item)
	default:
		w.WriteHeader(http.StatusMethodNotAllowed)
	}
}
`,
    symbols: { Handler: 'struct', Store: 'interface', Item: 'struct', NewHandler: 'function', 'Handler.ServeHTTP': 'method' },
    docOf: ['Handler.ServeHTTP', '// ServeHTTP dispatches by method.'],
  },
];
