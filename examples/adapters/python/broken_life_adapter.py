#!/usr/bin/env python3
"""The reference adapter with one bug in a request's life on D, chosen by the first argument:

retract-frees-prefix  the retraction's release forgets that the request shares its first page
                      with the prefix cache and frees that page too: the cache entry is gone,
                      and the page goes back to the allocator while the cache (and every
                      request that hit it) still means to read it.
resume-skips-merge    the resume takes its pages from SGLang's free list without the shortage
                      test of `alloc_extend` (`extend_num_tokens // page_size + bs + 1 >
                      len(free_pages)`): it merges the release list only when the free list
                      alone cannot serve it, so that it hands out other pages than SGLang's
                      allocator does (seen with `--allocator sglang --page-size 2` or more).

`pagecheck mbt --adapter "python3 broken_life_adapter.py MODE" --random --decode-steps 2
--retraction` must find the bug and shrink it (test/conformance/adapter-life.test.ts)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import adapter  # noqa: E402


class FreesPrefixServer(adapter.Server):
    def retract(self, name):
        q = self.requests[name]
        first = q["table"][0] if q["shares"] else None
        if not super().retract(name):
            return False
        if first is not None:
            # The bug: the shared prefix page is released with the request's own pages.
            del self.cache[q["prefix"]]
            self.pages[first]["holder"] = None
            self.alloc.free([first])
        return True


class SkipsMergeServer(adapter.Server):
    def resume(self, name):
        a = self.alloc

        def without_shortage_test(n, tokens=None):
            # The bug: merge only when the free list alone is too short, not by alloc_extend's test.
            if n > len(a.free_pages):
                a.merge_and_sort_free()
            out, a.free_pages = a.free_pages[:n], a.free_pages[n:]
            return out

        a.alloc = without_shortage_test
        try:
            return super().resume(name)
        finally:
            del a.alloc


if __name__ == "__main__":
    servers = {"retract-frees-prefix": FreesPrefixServer, "resume-skips-merge": SkipsMergeServer}
    adapter.serve(servers[sys.argv[1]])
