#!/usr/bin/env python3
"""A pagecheck adapter (docs/ADAPTER.md) around a small KV page allocator written in Python.

pagecheck runs `python3 adapter.py`, writes one JSON message per line to its stdin and reads
one JSON answer per line from its stdout. The allocator below follows the documented
behaviour of SGLang's paged allocator in prefill/decode mode (the `sglang` order), outside
it (the `lifo` order), or the spec's plain sorted free list (the `sorted` order); the request layer around it performs
the protocol's actions (allocate, prefill, stub, handoff, decode, free, timeout, insert,
and with protocol version 2 a request's life on D: grow, retract, offload, resume) and
reports what it can observe. Lengths come in both units (docs/ADAPTER.md): `length`
and `prefillLimit` in pages, `tokens` and `prefillTokens` in tokens, `pageSize` tokens a
page; this adapter works in tokens, so that a prompt's last page may be partial.
Standard library only.

Self-test of the allocator orders: python3 adapter.py --self-test
As a version-1 adapter (it then answers `hello` with protocol 1): python3 adapter.py --protocol 1
"""
import json
import sys


class Allocator:
    """A page allocator: `alloc(n)` returns n page ids or None, `free(ids)` gives them back.

    `sorted`: ids 0..pages-1; the free list is kept sorted, lowest ids first.
    `sglang`: ids 1..pages (page 0 is the padding page for dummy outputs); a freed page waits
    in a release list until an allocation finds too few free pages: then the free list and
    the release list are merged and sorted. The shortage test is the one of the call D's
    pre-allocation makes: with pages of one token `alloc`, short when it needs more pages
    than the free list holds; otherwise `alloc_extend` for a batch of one, short when
    `tokens // page_size + 1 + 1` exceeds the free list, where `tokens` is what the call
    allocates (the prompt's, less a cached prefix's). An attempt that gets no pages has
    merged all the same: it needed more than the free list held, which is short.
    `lifo`: SGLang's allocator outside P/D mode: ids 1..pages, no release list; a freed batch
    goes to the front of the free list (`torch.cat((page_ids, free_pages))`), and an
    allocation takes the front.
    """

    def __init__(self, pages, order, page_size=1):
        self.order = order
        self.page_size = page_size
        if order in ("sglang", "lifo"):
            self.free_pages = list(range(1, pages + 1))
        else:
            self.free_pages = list(range(pages))
        self.release_pages = []

    def available(self):
        return len(self.free_pages) + len(self.release_pages)

    def merge_and_sort_free(self):
        self.free_pages = sorted(self.free_pages + self.release_pages)
        self.release_pages = []

    def alloc(self, n, tokens=None):
        if tokens is None:
            tokens = n * self.page_size
        short = n > len(self.free_pages) if self.page_size == 1 else tokens // self.page_size + 1 + 1 > len(self.free_pages)
        if self.order == "sglang" and short:
            self.merge_and_sort_free()
        if n > len(self.free_pages):
            return None
        out, self.free_pages = self.free_pages[:n], self.free_pages[n:]
        return out

    def alloc_decode(self):
        """One page for a decode step's token (`alloc_decode`, or `alloc` with pages of one token).

        Its shortage test counts pages, not tokens: short when the free list proper is empty.
        """
        if self.order == "sglang" and not self.free_pages:
            self.merge_and_sort_free()
        if not self.free_pages:
            return None
        return self.free_pages.pop(0)

    def free(self, ids):
        # As in SGLang, ids are deduplicated within one call only.
        unique = sorted(set(ids))
        if self.order == "sglang":
            self.release_pages = unique + self.release_pages
        elif self.order == "lifo":
            self.free_pages = unique + self.free_pages
        else:
            self.free_pages = sorted(self.free_pages + unique)

    def observed_free(self):
        return sorted(self.free_pages + self.release_pages)


LIVE = ("allocated", "written", "handedOff", "decoded", "refused", "failed", "decoding")

# The phases of a request D is running: it may take a decode step, or be retracted.
RUNNING = ("handedOff", "decoding")


class Server:
    """The request layer: the protocol's actions on the allocator, and what they left behind."""

    def __init__(self, config):
        self.config = config
        self.variant = config["variant"]
        faults = set(config["faults"])
        self.silent_stub = self.variant != "length-fix" and "silent-stub" in faults
        self.owner_check = self.variant in ("owner-check", "hardened")
        # hardened's mechanisms (docs/VARIANTS.md): a timed-out request's late write lands nowhere
        # (revoke-writer), a release frees only the pages the request still holds
        # (release-checks-holder), a tag says how many slots its write filled (tag-counts-tokens),
        # and the host copy keeps each page's tag, which the load restores (copy-carries-tag).
        self.hardened = self.variant == "hardened"
        self.early_free = "early-free" in faults
        self.stale_free = "stale-free" in faults
        self.prefix_poison = "prefix-poison" in faults
        # A request's life on D (protocol version 2): decode steps, table growth, retraction.
        self.decode_steps = config.get("decodeSteps", 1)
        self.table_growth = config.get("tableGrowth", False)
        self.retraction = config.get("retraction", False)
        self.offload_after_free = "offload-after-free" in faults
        self.resume_stale = "resume-stale" in faults
        self.page_size = config.get("pageSize", 1)
        self.limit = config.get("prefillTokens", config["prefillLimit"] * self.page_size)
        self.at_least = config.get("lengthRule", "gt") == "ge"
        self.alloc = Allocator(config["pages"], config.get("allocator", "sorted"), self.page_size)
        ids = range(1, config["pages"] + 1) if self.alloc.order in ("sglang", "lifo") else range(config["pages"])
        # fill: how many token slots, from the first, the last write filled (the rest hold P's stale data);
        # pos: the table position the content was written for (a token's write grows the page's content only at its own position).
        self.pages = {p: {"holder": None, "data": None, "tag": None, "fill": 0, "tag_fill": 0, "pos": 0} for p in ids}
        self.requests = {}
        # Steps after the first write one token each; with growth the table may take a page for them.
        grown = self.decode_steps - 1 if self.table_growth else 0
        for q in config["requests"]:
            tokens = q.get("tokens", q["length"] * self.page_size)
            capacity = -(-(tokens + grown) // self.page_size)
            self.requests[q["name"]] = {"length": q["length"], "tokens": tokens, "capacity": capacity, "prefix": q.get("prefix"), "phase": "new", "table": [], "read": set(), "shares": False, "steps": 0, "saved": None}
        self.cache = {}  # prefix -> page

    # Labels: a request's own data is its name; a prefix's data is "prefix:<p>"; the cache entry holding a page is "cache:<p>".
    def may_read(self, name, label):
        prefix = self.requests[name]["prefix"]
        return label == name or (prefix is not None and label in ("prefix:" + prefix, "cache:" + prefix))

    def may_read_at(self, name, label, i):
        """Whether a page's content is the reader's own at table position i: its own, or its prefix's at the prefix's position."""
        prefix = self.requests[name]["prefix"]
        return label == name or (i == 0 and prefix is not None and label == "prefix:" + prefix)

    def over_long(self, q):
        return q["tokens"] >= self.limit if self.at_least else q["tokens"] > self.limit

    def slots(self, q, i, end=None):
        """The token slots of table position i that a read of the first `end` slots covers (the prompt's when left out)."""
        return min(self.page_size, (q["tokens"] if end is None else end) - i * self.page_size)

    def write(self, page, label, fill):
        self.pages[page]["data"] = label
        self.pages[page]["fill"] = fill
        if self.owner_check:
            self.pages[page]["tag"] = label
            self.pages[page]["tag_fill"] = fill

    def take(self, name, page):
        """The request holds a page it was just given; under an owner check its tag is cleared."""
        self.pages[page]["holder"] = name
        if self.owner_check:
            self.pages[page]["tag"] = None
            self.pages[page]["tag_fill"] = 0

    def release_batches(self, q):
        """The table positions a release gives back, batch by batch, as SGLang's `release_kv_cache` (mem_cache/common.py)
        calls the allocator: `cache_finished_req` frees the request's own prefix page (a duplicate of the cache's) and the
        unaligned tail page, then `free_segment` the rest. Under `lifo` these are grouped (`free_group_begin/end`): the
        two `free` calls as one batch, then the segment, which lands in front; the other orders do not see the order."""
        shared = 1 if q["shares"] else 0
        end = q["capacity"]
        dup_end = min(end, max(shared, 1 if q["prefix"] is not None else 0))
        tail_from = max(dup_end, end - 1) if self.page_size > 1 and q["tokens"] % self.page_size else end
        frees = list(range(shared, dup_end)) + list(range(tail_from, end))
        return [b for b in (frees, list(range(dup_end, tail_from))) if b]

    def release(self, name):
        """Gives the table's pages back to the allocator, except a shared prefix page."""
        q = self.requests[name]
        for batch in self.release_batches(q):
            freed = []
            for i in batch:
                if i >= len(q["table"]):
                    continue
                p = q["table"][i]
                holder = self.pages[p]["holder"]
                if holder is None or (self.hardened and holder != name):
                    continue
                if holder.startswith("cache:"):
                    del self.cache[holder[len("cache:"):]]
                self.pages[p]["holder"] = None
                freed.append(p)
            self.alloc.free(freed)

    def allocate(self, name):
        q = self.requests[name]
        if q["phase"] != "new":
            return False
        hit = self.cache.get(q["prefix"]) if q["prefix"] is not None else None
        shared = 1 if hit is not None else 0
        got = self.alloc.alloc(q["length"] - shared, q["tokens"] - shared * self.page_size)
        if got is None:
            return False
        q["table"] = ([hit] if hit is not None else []) + got
        q["shares"] = hit is not None
        for p in got:
            self.take(name, p)
        q["phase"] = "allocated"
        return True

    def prefill(self, name):
        q = self.requests[name]
        if q["phase"] not in ("allocated", "timedOut") or self.over_long(q):
            return False
        if q["phase"] == "timedOut" and self.hardened:
            q["phase"] = "landed"
            return True
        for i in range(1 if q["shares"] else 0, q["length"]):
            self.write(q["table"][i], "prefix:" + q["prefix"] if i == 0 and q["prefix"] is not None else name, self.slots(q, i))
            self.pages[q["table"][i]]["pos"] = i
        q["phase"] = "landed" if q["phase"] == "timedOut" else "written"
        return True

    def stub(self, name):
        q = self.requests[name]
        if q["phase"] not in ("allocated", "timedOut") or not self.over_long(q):
            return False
        if not self.silent_stub:
            q["phase"] = "freed" if q["phase"] == "timedOut" else "refused"
            return True
        if q["phase"] == "timedOut" and self.hardened:
            q["phase"] = "landed"
            return True
        # The stub is one token: its page's other slots keep P's stale data.
        first = 1 if q["shares"] else 0
        self.write(q["table"][first], name, 1)
        self.pages[q["table"][first]]["pos"] = first
        q["phase"] = "landed" if q["phase"] == "timedOut" else "written"
        return True

    def handoff(self, name):
        q = self.requests[name]
        if q["phase"] != "written":
            return False
        q["phase"] = "handedOff"
        return True

    def next_slot(self, q):
        """The slot the next step's token goes to: after the prompt and the tokens the earlier steps wrote."""
        return q["tokens"] + max(0, q["steps"] - 1)

    def read_end(self, q):
        """How many slots, from the first, the next step reads: the prompt's and the tokens decoded so far, within the table."""
        return min(self.next_slot(q), q["capacity"] * self.page_size)

    def needs_page(self, q):
        """Under table growth: the next step (not the first) writes its token past the table's last page, so `grow` comes first."""
        if not self.table_growth or q["steps"] == 0:
            return False
        i = self.next_slot(q) // self.page_size
        return len(q["table"]) <= i < q["capacity"]

    def tag_passes(self, name, i, p, slots):
        """The owner check at position i: a prefix's tag passes only at the prefix's own position, the first (its KV is
        right only there); under hardened the tag must also say its write filled every slot read there."""
        tag = self.pages[p]["tag"]
        return self.may_read(name, tag) and (i == 0 or tag == name) and (not self.hardened or self.pages[p]["tag_fill"] >= slots)

    def decode(self, name):
        """One decode step (SGLang's forward of the running batch): it reads the request's slots up to its length, and a
        step after the first writes its new token into the next slot (`req_to_token[row, seq_len]`)."""
        q = self.requests[name]
        if q["phase"] not in RUNNING or self.needs_page(q):
            return False
        end = self.read_end(q)
        positions = -(-end // self.page_size)
        if self.owner_check and not all(self.tag_passes(name, i, q["table"][i], self.slots(q, i, end)) for i in range(positions)):
            q["phase"] = "failed"
            return True
        for i in range(positions):
            p = q["table"][i]
            label = self.pages[p]["data"]
            if label is None:
                continue
            # Reading past what the last write filled meets P's stale data, unless the content is another's anyway.
            stale = self.may_read_at(name, label, i) and self.slots(q, i, end) > self.pages[p]["fill"]
            q["read"].add("stale" if stale else label)
        if q["steps"] > 0:
            self.write_token(name)
        q["steps"] += 1
        q["phase"] = "decoded" if q["steps"] >= self.decode_steps else "decoding"
        return True

    def write_token(self, name):
        """The step's token into the next slot (the table's last slot once it is full): the page is the request's up to it."""
        q = self.requests[name]
        slot = min(self.next_slot(q), q["capacity"] * self.page_size - 1)
        i = slot // self.page_size
        if i >= len(q["table"]):
            return
        page = self.pages[q["table"][i]]
        filled = slot - i * self.page_size + 1
        grows = page["data"] == name and page["pos"] == i
        tag_grows = page["tag"] == name
        page["data"], page["pos"], page["fill"] = name, i, max(page["fill"], filled) if grows else filled
        if self.owner_check:
            page["tag"], page["tag_fill"] = name, max(page["tag_fill"], filled) if tag_grows else filled

    def grow(self, name):
        """Table growth: one more page for the next step's token, before the step (`ScheduleBatch.prepare_for_decode` →
        `alloc_for_decode` → the allocator's `alloc_decode`, managers/schedule_batch.py, mem_cache/common.py)."""
        q = self.requests[name]
        if not self.table_growth or q["phase"] != "decoding" or not self.needs_page(q) or self.alloc.available() < 1:
            return False
        p = self.alloc.alloc_decode()
        self.take(name, p)
        q["table"].append(p)
        return True

    def copy_table(self, q):
        """The copy to host memory (`DecodeKVCacheOffloadManager.offload_kv_cache`): what each page of the table holds now."""
        return [dict((k, self.pages[p][k]) for k in ("data", "pos", "fill", "tag", "tag_fill")) for p in q["table"]]

    def retract(self, name):
        """D runs short and retracts a running request (`Scheduler.update_running_batch` → `ScheduleBatch.retract_decode`
        → `release_req`): the copy to host memory (`Req.offload_kv_cache`), then the release
        (`release_kv_cache(req, tree_cache, is_insert=False)`, mem_cache/common.py). With offload-after-free (PR #30899)
        the release does not wait for the copy: it comes first, and the copy reads the pages later (`offload`)."""
        q = self.requests[name]
        if not self.retraction or q["phase"] not in RUNNING:
            return False
        if not self.offload_after_free:
            q["saved"] = self.copy_table(q)
        self.release(name)
        # It shares nothing with the cache now: resume decides again (and matches no prefix).
        q["shares"] = False
        q["phase"] = "offloading" if self.offload_after_free else "retracted"
        return True

    def offload(self, name):
        """offload-after-free: the late copy reads the old table's pages, whoever holds them by now."""
        q = self.requests[name]
        if not self.offload_after_free or q["phase"] != "offloading":
            return False
        q["saved"] = self.copy_table(q)
        q["phase"] = "retracted"
        return True

    def resume(self, name):
        """D resumes a retracted request (disaggregation/decode.py: `resume_retracted_reqs` → `_pre_alloc` with no prefix
        match, `alloc_extend` of its `fill_len`; then `Req.load_kv_cache`). Refused, merging nothing, when too few pages
        are free. With resume-stale (PR #35957) the load does not happen: the new pages keep what they held."""
        q = self.requests[name]
        if not self.retraction or q["phase"] != "retracted":
            return False
        room = len(q["table"])
        if self.alloc.available() < room:
            return False
        # fill_len: the prompt and the tokens whose KV was written, at least one slot in the last page.
        tokens = min(room * self.page_size, max(self.next_slot(q), (room - 1) * self.page_size + 1))
        q["table"] = self.alloc.alloc(room, tokens)
        for p in q["table"]:
            self.take(name, p)
        if not self.resume_stale:
            for copy, p in zip(q["saved"], q["table"]):
                self.load(name, copy, p)
        q["saved"] = None
        q["phase"] = "decoding" if q["steps"] > 0 else "handedOff"
        return True

    def load(self, name, copy, p):
        """The load writes the copy into a new page on the request's behalf: under an owner check it stamps the request's
        tag, or under hardened (copy-carries-tag) the tag the copy read."""
        page = self.pages[p]
        page["data"], page["pos"], page["fill"] = copy["data"], copy["pos"], copy["fill"]
        if not self.owner_check:
            return
        if self.hardened:
            page["tag"], page["tag_fill"] = copy["tag"], copy["tag_fill"] if copy["tag"] is not None else 0
        else:
            page["tag"], page["tag_fill"] = name, copy["fill"]

    def free(self, name):
        q = self.requests[name]
        normal = q["phase"] in ("decoded", "refused", "failed")
        stale = self.stale_free and q["phase"] in ("freed", "landed")
        if not normal and not stale:
            return False
        self.free_pages_of(name, abort=q["phase"] in ("refused", "failed"))
        q["phase"] = "freed" if normal else "released"
        return True

    def free_pages_of(self, name, abort):
        """The release of a finished request; `abort` is the path of a refused or failed one."""
        self.release(name)

    def timeout(self, name):
        q = self.requests[name]
        if not self.early_free or q["phase"] != "allocated":
            return False
        self.release(name)
        q["phase"] = "timedOut"
        return True

    def insert(self, name):
        q = self.requests[name]
        poison = self.prefix_poison and q["phase"] in ("refused", "failed")
        if q["phase"] != "decoded" and not poison:
            return False
        prefix = q["prefix"]
        if prefix is None or prefix in self.cache or q["shares"] or not q["table"]:
            return False
        first = q["table"][0]
        if self.pages[first]["holder"] != name:
            return False
        self.pages[first]["holder"] = "cache:" + prefix
        self.cache[prefix] = first
        q["shares"] = True
        return True

    def word(self, label, fill):
        """Content (or a tag) as the spec's view names it: with token slots, `A(1/64)` when it fills only the first slots of its page."""
        return label if label is None or self.page_size == 1 or fill >= self.page_size else "%s(%d/%d)" % (label, fill, self.page_size)

    def observe(self):
        return {
            "pages": [{"id": p, "holder": v["holder"], "data": self.word(v["data"], v["fill"]), "tag": self.word(v["tag"], v["tag_fill"])} for p, v in sorted(self.pages.items())],
            "requests": {n: {"phase": q["phase"], "table": q["table"], "read": sorted(q["read"])} for n, q in self.requests.items()},
            "free": self.alloc.observed_free(),
        }


# The actions of protocol version 1, then those of a request's life on D (version 2).
ACTIONS = ("allocate", "prefill", "stub", "handoff", "decode", "free", "timeout", "insert", "grow", "retract", "offload", "resume")

# The protocol version this adapter speaks; `--protocol 1` makes it answer as a version-1 adapter.
PROTOCOL = 2


def serve(make_server, stdin=sys.stdin, stdout=sys.stdout):
    """The protocol loop: hello, then reset / action messages, until bye or end of input."""
    server = None

    def answer(obj):
        stdout.write(json.dumps(obj) + "\n")
        stdout.flush()

    for line in stdin:
        msg = json.loads(line)
        kind = msg["type"]
        if kind == "hello":
            answer({"type": "hello", "protocol": PROTOCOL, "adapter": "pagecheck reference adapter (Python)", "observes": ["holder", "data", "tag", "phase", "table", "read", "free"]})
        elif kind == "reset":
            server = make_server(msg["config"])
            answer({"type": "ready"})
        elif kind == "action":
            if server is None or msg["kind"] not in ACTIONS or msg["request"] not in server.requests:
                answer({"type": "error", "message": "unknown action or request, or no reset yet: " + line.strip()})
                continue
            accepted = getattr(server, msg["kind"])(msg["request"])
            answer({"type": "state", "accepted": accepted, "state": server.observe()})
        elif kind == "bye":
            answer({"type": "bye"})
            return
        else:
            answer({"type": "error", "message": "unknown message type " + json.dumps(kind)})


def self_test():
    """The documented orders on 8 pages of 4 tokens (and of one token)."""
    a = Allocator(8, "sglang", 4)
    assert a.alloc(2) == [1, 2]
    a.free([1, 2])
    assert a.alloc(2) == [3, 4], "freed pages wait in the release list"
    got = [a.alloc(1) for _ in range(6)]
    assert got == [[5], [6], [1], [2], [7], [8]], got
    one = Allocator(8, "sglang", 1)
    one.alloc(2)
    one.free([1, 2])
    assert one.alloc(2) == [3, 4]
    got = [one.alloc(1) for _ in range(6)]
    assert got == [[5], [6], [7], [8], [1], [2]], got
    # alloc_extend counts tokens: a partial last page (5 tokens in 2 pages of 4) is one page early, not two.
    t = Allocator(8, "sglang", 4)
    assert t.alloc(2, 8) == [1, 2]
    t.free([1, 2])
    assert t.alloc(3, 12) == [3, 4, 5]
    assert t.alloc(2, 5) == [6, 7], "5 // 4 + 2 = 3 entries are listed: no merge"
    w = Allocator(8, "sglang", 4)
    w.alloc(2, 8)
    w.free([1, 2])
    w.alloc(3, 12)
    assert w.alloc(2, 8) == [1, 2], "8 // 4 + 2 = 4 > 3: merge first"
    # A failed attempt merges all the same.
    f = Allocator(4, "sglang", 4)
    f.alloc(2, 8)
    f.free([1, 2])
    assert f.alloc(5, 20) is None and f.free_pages == [1, 2, 3, 4] and f.release_pages == []
    # lifo: a freed batch goes to the front, and the next allocation takes it first.
    l = Allocator(4, "lifo")
    assert l.alloc(2) == [1, 2]
    l.free([2, 1])
    l.free([3])
    assert l.alloc(3) == [3, 1, 2], "the last batch freed is taken first, each batch ascending"
    s = Allocator(8, "sorted")
    assert s.alloc(2) == [0, 1]
    s.free([1, 0])
    assert s.alloc(3) == [0, 1, 2]
    print("self-test passed")


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        self_test()
    else:
        if sys.argv[1:2] == ["--protocol"]:
            PROTOCOL = int(sys.argv[2])
        serve(Server)
