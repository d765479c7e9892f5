import type { CodeFixture } from './fixtures.js';

/** Java, C, C++, C#, Ruby and PHP snippets. */
export const CLASSIC: CodeFixture[] = [  {
    path: 'src/main/java/com/acme/Inventory.java',
    language: 'java',
    code: `package com.acme;

import java.util.HashMap;
import java.util.Map;

/**
 * Keeps stock levels per SKU.
 */
public class Inventory {
    private final Map<String, Integer> stock = new HashMap<>();

    public Inventory() {
    }

    /** Adds units of a SKU. */
    @Deprecated
    public void add(String sku, int units) {
        if (units <= 0) {
            throw new IllegalArgumentException("units must be positive");
        }
        stock.merge(sku, units, Integer::sum);
    }

    public boolean remove(String sku, int units) {
        Integer have = stock.get(sku);
        if (have == null || have < units) {
            return false;
        }
        stock.put(sku, have - units);
        return true;
    }

    public int count(String sku) {
        return stock.getOrDefault(sku, 0);
    }
}

interface Auditor {
    void audit(Inventory inventory);
}

enum Unit { PIECE, BOX }
`,
    symbols: { Inventory: 'class', Auditor: 'interface', Unit: 'enum' },
    docOf: ['Inventory', ' * Keeps stock levels per SKU.'],
    bigClass: { name: 'Inventory', kind: 'class', methods: ['Inventory', 'add', 'remove', 'count'] },
  },  {
    path: 'src/buffer.c',
    language: 'c',
    code: `#include <stdlib.h>
#include <string.h>

#define INITIAL_CAP 16

/* A growable byte buffer. */
typedef struct {
    char *data;
    size_t len;
    size_t cap;
} buffer_t;

struct node {
    int value;
    struct node *next;
};

/**
 * Creates an empty buffer.
 */
buffer_t *buffer_new(void) {
    buffer_t *b = malloc(sizeof *b);
    b->data = malloc(INITIAL_CAP);
    b->len = 0;
    b->cap = INITIAL_CAP;
    return b;
}

static int buffer_grow(buffer_t *b, size_t need) {
    while (b->cap < need) {
        b->cap *= 2;
    }
    char *p = realloc(b->data, b->cap);
    if (!p) return -1;
    b->data = p;
    return 0;
}

int buffer_append(buffer_t *b, const char *s, size_t n) {
    if (buffer_grow(b, b->len + n) != 0) return -1;
    memcpy(b->data + b->len, s, n);
    b->len += n;
    return 0;
}
`,
    symbols: { buffer_t: 'struct', node: 'struct', buffer_new: 'function', buffer_grow: 'function', buffer_append: 'function' },
    docOf: ['buffer_new', ' * Creates an empty buffer.'],
  },  {
    path: 'src/matrix.cpp',
    language: 'cpp',
    code: `#include <vector>
#include <stdexcept>

namespace linalg {

/// Dense row-major matrix.
class Matrix {
public:
    Matrix(size_t rows, size_t cols) : rows_(rows), cols_(cols), data_(rows * cols) {}

    double& at(size_t r, size_t c) {
        if (r >= rows_ || c >= cols_) throw std::out_of_range("index");
        return data_[r * cols_ + c];
    }

    Matrix multiply(const Matrix& other) const {
        Matrix out(rows_, other.cols_);
        for (size_t i = 0; i < rows_; ++i)
            for (size_t j = 0; j < other.cols_; ++j)
                for (size_t k = 0; k < cols_; ++k)
                    out.data_[i * other.cols_ + j] += data_[i * cols_ + k] * other.data_[k * other.cols_ + j];
        return out;
    }

private:
    size_t rows_, cols_;
    std::vector<double> data_;
};

template <typename T>
T clamp(T v, T lo, T hi) {
    return v < lo ? lo : (v > hi ? hi : v);
}

struct Shape {
    virtual double area() const = 0;
};

}  // namespace linalg

double linalg_trace(linalg::Matrix& m, size_t n) {
    double t = 0;
    for (size_t i = 0; i < n; ++i) t += m.at(i, i);
    return t;
}
`,
    symbols: { Matrix: 'class', clamp: 'function', Shape: 'struct', linalg_trace: 'function' },
    docOf: ['Matrix', '/// Dense row-major matrix.'],
    bigClass: { name: 'Matrix', kind: 'class', methods: ['Matrix', 'at', 'multiply'] },
  },  {
    path: 'Services/OrderService.cs',
    language: 'c_sharp',
    code: `using System;
using System.Collections.Generic;

namespace Shop.Services
{
    /// <summary>Places and cancels orders.</summary>
    [Serializable]
    public class OrderService
    {
        private readonly List<Order> _orders = new();

        public int Count => _orders.Count;

        public OrderService() { }

        /// <summary>Places an order.</summary>
        public Order Place(string sku, int qty)
        {
            if (qty <= 0) throw new ArgumentOutOfRangeException(nameof(qty));
            var order = new Order(Guid.NewGuid(), sku, qty);
            _orders.Add(order);
            return order;
        }

        public bool Cancel(Guid id)
        {
            return _orders.RemoveAll(o => o.Id == id) > 0;
        }
    }

    public interface IClock
    {
        DateTime Now { get; }
    }

    public record Order(Guid Id, string Sku, int Qty);

    public enum Status { Open, Closed }
}
`,
    symbols: { OrderService: 'class', IClock: 'interface', Order: 'class', Status: 'enum' },
    docOf: ['OrderService', '    [Serializable]'],
    bigClass: { name: 'OrderService', kind: 'class', methods: ['OrderService', 'Place', 'Cancel'] },
  },  {
    path: 'lib/greeter.rb',
    language: 'ruby',
    code: `require 'json'

module Greeting
  # Formats a greeting line.
  def self.format(name)
    "Hello, #{name}!"
  end
end

# Greets people and remembers them.
class Greeter
  attr_reader :seen

  def initialize(prefix = 'Hi')
    @prefix = prefix
    @seen = []
  end

  def greet(name)
    @seen << name
    "#{@prefix} #{name}"
  end

  def to_json(*args)
    { prefix: @prefix, seen: @seen }.to_json(*args)
  end
end

def shout(text)
  text.upcase + '!'
end
`,
    symbols: { Greeting: 'module', Greeter: 'class', shout: 'function' },
    docOf: ['Greeter', '# Greets people and remembers them.'],
    bigClass: { name: 'Greeter', kind: 'class', methods: ['initialize', 'greet', 'to_json'] },
  },  {
    path: 'src/Cart.php',
    language: 'php',
    code: `<?php

namespace App\\Shop;

use App\\Models\\Product;

/**
 * A shopping cart.
 */
final class Cart
{
    private array $items = [];

    public function add(Product $product, int $qty = 1): void
    {
        $id = $product->id();
        $this->items[$id] = ($this->items[$id] ?? 0) + $qty;
    }

    public function total(): float
    {
        $sum = 0.0;
        foreach ($this->items as $id => $qty) {
            $sum += Product::find($id)->price() * $qty;
        }
        return $sum;
    }

    public function clear(): void
    {
        $this->items = [];
    }
}

interface Discount
{
    public function apply(float $amount): float;
}

function format_money(float $amount): string
{
    return number_format($amount, 2);
}
`,
    symbols: { Cart: 'class', Discount: 'interface', format_money: 'function' },
    docOf: ['Cart', ' * A shopping cart.'],
    bigClass: { name: 'Cart', kind: 'class', methods: ['add', 'total', 'clear'] },
  },
];
