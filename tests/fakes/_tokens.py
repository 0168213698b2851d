"""Token counts and prompt caches as the real model APIs do them, for the fakes' counting
mode (``bench_tokens``): what a request costs depends on what it sends, and on what an
earlier request already sent.

Tokens are approximated as characters / 4 over the request as sent (tools, system
prompt, messages, serialized as compact JSON where they are structures): a stated
approximation, the same for every layout measured, so ratios between layouts hold.

Caches:

- Anthropic caches a request's prefix up to each ``cache_control`` breakpoint, in the
  order tools, system, messages. A request whose prefix up to a breakpoint (or up to 20
  blocks before one) was cached reads it (``cache_read_input_tokens``); the prefix up to
  its last breakpoint, when longer, is written (``cache_creation_input_tokens``).
  Prefixes under 1,024 tokens are not cached; an entry lives 5 minutes from its last use.
- OpenAI caches automatically: the longest prefix a request shares with an earlier one,
  from 1,024 tokens in steps of 128, is read (``input_tokens_details.cached_tokens``);
  there is no charge for writing. The fakes of the Chat Completions API (opencode's
  OpenAI-compatible servers) and of the Gemini API (implicit caching) count the same
  way: a stated approximation of theirs.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["AnthropicCache", "OpenAICache", "tokens"]

#: The shortest prefix either provider caches.
MINIMUM = 1024
#: OpenAI's cached prefix grows in steps of this many tokens.
STEP = 128
#: How long a cached prefix lives after its last use.
LIFETIME = 300.0
#: How many blocks before a breakpoint Anthropic's cache looks for an earlier entry.
LOOKBACK = 20
CHARS_PER_TOKEN = 4


def tokens(text: str) -> int:
    """The approximate token count of ``text`` (characters / 4, rounded up)."""
    return -(-len(text) // CHARS_PER_TOKEN)


def _text(part: Any) -> str:
    return part if isinstance(part, str) else json.dumps(part, separators=(",", ":"))


def _without_cache_control(block: Any) -> Any:
    if isinstance(block, Mapping):
        return {k: v for k, v in block.items() if k != "cache_control"}
    return block


def _anthropic_blocks(body: Mapping[str, Any]) -> list[tuple[str, bool]]:
    """The request as (text, is a breakpoint) blocks, in the order the cache sees them."""
    blocks: list[tuple[str, bool]] = []
    for tool in body.get("tools") or []:
        blocks.append((_text(_without_cache_control(tool)), "cache_control" in tool))
    system = body.get("system") or []
    if isinstance(system, str):
        system = [{"type": "text", "text": system}]
    for block in system:
        blocks.append((str(block.get("text", "")), "cache_control" in block))
    for message in body.get("messages") or []:
        content = message.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        for block in content or []:
            marked = isinstance(block, Mapping) and "cache_control" in block
            blocks.append((message.get("role", "") + _text(_without_cache_control(block)), marked))
    return blocks


class AnthropicCache:
    """The prompt cache of one fake Anthropic API (shared by every request it serves)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: dict[str, float] = {}

    def usage(self, body: Mapping[str, Any], output: str) -> dict[str, int]:
        """The ``usage`` the API reports for ``body``, updating the cache."""
        digest = hashlib.sha256()
        total = 0
        # (digest, tokens, is a breakpoint) after each block
        ends: list[tuple[str, int, bool]] = []
        for text, breakpoint in _anthropic_blocks(body):
            digest.update(text.encode())
            total += tokens(text)
            ends.append((digest.copy().hexdigest(), total, breakpoint))
        marks = [i for i, (_, _, breakpoint) in enumerate(ends) if breakpoint]
        now = time.monotonic()
        read = written = 0
        with self._lock:
            self._entries = {k: t for k, t in self._entries.items() if now - t < LIFETIME}
            # Each breakpoint looks back up to 20 blocks for the longest cached prefix.
            for mark in marks:
                for index in range(mark, max(-1, mark - LOOKBACK), -1):
                    key, length, _ = ends[index]
                    if key in self._entries and length > read:
                        read = length
                        self._entries[key] = now
                        break
            for mark in marks:
                key, length, _ = ends[mark]
                if length >= MINIMUM and key not in self._entries:
                    self._entries[key] = now
            if marks and ends[marks[-1]][1] > read and ends[marks[-1]][1] >= MINIMUM:
                written = ends[marks[-1]][1] - read
        return {
            "input_tokens": total - read - written,
            "cache_creation_input_tokens": written,
            "cache_read_input_tokens": read,
            "output_tokens": max(1, tokens(output)),
        }


def _openai_text(body: Mapping[str, Any]) -> str:
    """The request in the order a prefix cache sees it: instructions (Responses; Gemini's
    ``systemInstruction``), tools, then the conversation (Responses ``input``, Chat
    Completions ``messages``, Gemini ``contents``)."""
    parts: Sequence[Any] = [
        body.get("instructions") or "",
        body.get("systemInstruction") or "",
        *(body.get("tools") or []),
        *(body.get("input") or []),
        *(body.get("messages") or []),
        *(body.get("contents") or []),
    ]
    return "".join(_text(part) for part in parts)


def _common_prefix(a: str, b: str) -> int:
    """The length of the longest common prefix of ``a`` and ``b``."""
    low, high = 0, min(len(a), len(b))
    while low < high:  # binary search on slices: fast in C for long prompts
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


class OpenAICache:
    """The automatic prompt cache of one fake OpenAI API."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seen: list[tuple[str, float]] = []

    def usage(self, body: Mapping[str, Any], output: str) -> dict[str, int]:
        """(input tokens, cached of them, output tokens) for ``body``, updating the cache."""
        text = _openai_text(body)
        total = tokens(text)
        now = time.monotonic()
        with self._lock:
            self._seen = [(seen, t) for seen, t in self._seen if now - t < LIFETIME]
            shared = max((_common_prefix(text, seen) for seen, _ in self._seen), default=0)
            self._seen.append((text, now))
        shared_tokens = shared // CHARS_PER_TOKEN
        cached = 0
        if shared_tokens >= MINIMUM:
            cached = MINIMUM + (shared_tokens - MINIMUM) // STEP * STEP
        return {
            "input_tokens": total,
            "cached_tokens": min(cached, total),
            "output_tokens": max(1, tokens(output)),
        }
