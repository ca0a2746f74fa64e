#!/usr/bin/env python3
"""The reference adapter with one bug: on the abort path (a request refused by P or failed
by the owner check), the release runs twice, so its pages go back to the allocator twice.
The allocator deduplicates within one call only, as SGLang's does (SGLang #27731, #38840):
the free list now holds those pages twice, and two later requests can both be handed one.
`pagecheck mbt --adapter "python3 broken_adapter.py"` must find it and shrink it."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import adapter  # noqa: E402


class BrokenServer(adapter.Server):
    def free_pages_of(self, name, abort):
        q = self.requests[name]
        pages = [p for i, p in enumerate(q["table"]) if not (i == 0 and q["shares"]) and self.pages[p]["holder"] == name]
        self.release(name)
        if abort:
            # The abort path's own release, after the normal one.
            self.alloc.free(pages)


if __name__ == "__main__":
    adapter.serve(BrokenServer)
