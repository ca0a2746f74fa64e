#!/usr/bin/env python3
"""The reference adapter with one of two mistakes about SGLang's alloc_extend, for the tests
of `mbt --adapter` at page size 64 (test/conformance/adapter-tokens.test.ts):

  whole-pages  the shortage test counts pages (need + 2) instead of tokens
  no-merge     a failed attempt returns None before it merges the release list

or without one of hardened's mechanisms (docs/VARIANTS.md):

  no-tag-count       decode does not check that the tag's write filled every slot read
  unchecked-release  a release frees pages another request holds now

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


class NoTagCount(adapter.Server):
    def write(self, page, label, fill):
        super().write(page, label, fill)
        # The tag claims the whole page, whatever the write filled.
        self.pages[page]["tag_fill"] = self.page_size


class UncheckedRelease(adapter.Server):
    def release(self, name):
        hardened, self.hardened = self.hardened, False
        try:
            super().release(name)
        finally:
            self.hardened = hardened


MODES = {"whole-pages": WholePages, "no-merge": NoMerge}
SERVERS = {"no-tag-count": NoTagCount, "unchecked-release": UncheckedRelease}

if __name__ == "__main__":
    if sys.argv[1] in SERVERS:
        adapter.serve(SERVERS[sys.argv[1]])
    else:
        adapter.Allocator = MODES[sys.argv[1]]
        adapter.serve(adapter.Server)
