#!/usr/bin/env python3
"""The reference adapter with one of two mistakes about SGLang's alloc_extend, for the tests
of `mbt --adapter` at page size 64 (test/conformance/adapter-tokens.test.ts):

  whole-pages  the shortage test counts pages (need + 2) instead of tokens
  no-merge     a failed attempt returns None before it merges the release list

Usage: python3 sglang_variants.py MODE
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "examples", "adapters", "python"))
import adapter  # noqa: E402


class WholePages(adapter.Allocator):
    def alloc(self, n, tokens=None):
        return super().alloc(n, n * self.page_size)


class NoMerge(adapter.Allocator):
    def alloc(self, n, tokens=None):
        if n > self.available():
            return None
        return super().alloc(n, tokens)


MODES = {"whole-pages": WholePages, "no-merge": NoMerge}

if __name__ == "__main__":
    adapter.Allocator = MODES[sys.argv[1]]
    adapter.serve(adapter.Server)
