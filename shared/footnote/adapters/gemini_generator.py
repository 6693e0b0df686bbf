"""Answers from Gemini on Vertex AI through google-genai.

The system instruction carries the citation rules; the notes go in the user
turn, quoted as untrusted data (``generation.prompt``). Temperature, output
tokens and the timeout come from settings. A failure (timeout, quota after
retries, a blocked or empty answer) raises: ``ChatService`` then answers
with the offline quote answer and reports ``generator_quote`` in ``meta.fallbacks``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Sequence
from datetime import date, datetime
from typing import Any

from footnote.adapters.google_retry import RetryPolicy, unavailable_on_sdk_errors
from footnote.adapters.vertex_embedder import genai_client
from footnote.config import Settings
from footnote.domain import Intent, MemoryType, ModelReading, QueryAnalysis, Source
from footnote.errors import BackendUnavailable
from footnote.generation.prompt import (
    READ_INSTRUCTION,
    REWRITE_INSTRUCTION,
    read_prompt,
    rewrite_prompt,
    system_instruction,
    user_prompt,
)
from footnote.ports import Generator, Pieces

NO_SOURCES_INSTRUCTION = """You are the assistant of a notes app. The user asked a question
without using their notes. Answer briefly from general knowledge and say that the
answer does not come from their notes."""


class GeminiGenerator(Generator):
    def __init__(
        self,
        client: Any,
        model: str,
        temperature: float = 0.2,
        max_output_tokens: int = 1024,
        timeout_ms: int = 20_000,
        context_max_chars: int = 12_000,
        retry: RetryPolicy | None = None,
    ) -> None:
        self._client = client
        self.model = model
        self._temperature = temperature
        self._max_tokens = max_output_tokens
        self._timeout_s = timeout_ms / 1000
        self._context_chars = context_max_chars
        self._retry = retry or RetryPolicy()

    @classmethod
    def from_settings(cls, s: Settings, credentials: Any = None) -> GeminiGenerator:
        client = genai_client(
            s.project_id, s.location, s.vertex_api_endpoint, s.chat_timeout_ms, credentials
        )
        return cls(
            client,
            s.chat_model,
            s.chat_temperature,
            s.chat_max_output_tokens,
            s.chat_timeout_ms,
            s.context_max_chars,
            RetryPolicy.from_settings(s),
        )

    def _config(self, sources: Sequence[Source], strict: bool) -> Any:
        from google.genai import types

        instruction = system_instruction(strict) if sources else NO_SOURCES_INSTRUCTION
        extra: dict[str, Any] = {}
        if self.model.startswith("gemini-2.5-flash"):
            # Thinking tokens count against max_output_tokens; a cited summary needs none.
            extra["thinking_config"] = types.ThinkingConfig(thinking_budget=0)
        return types.GenerateContentConfig(
            system_instruction=instruction,
            temperature=self._temperature,
            max_output_tokens=self._max_tokens,
            candidate_count=1,
            **extra,
        )

    def _prompt(
        self, question: str, sources: Sequence[Source], history: Sequence[tuple[str, str]] = ()
    ) -> str:
        if not sources:
            return question.strip()
        return user_prompt(question, sources, self._context_chars, history)

    def _generate(self, what: str, prompt: Any, config: Any) -> Any:
        """One generate_content call, retried within the deadline; SDK errors become
        BackendUnavailable."""
        label = f"{what} with {self.model}"
        with unavailable_on_sdk_errors(label):
            return self._retry.call(
                label,
                lambda: self._client.models.generate_content(
                    model=self.model, contents=prompt, config=config
                ),
                deadline_s=self._timeout_s,
            )

    def rewrite_question(self, message: str, history: Sequence[tuple[str, str]]) -> str:
        """The follow-up ``message`` as a standalone question, for retrieval; a first
        question (no ``history``) is standalone already, and no model is asked."""
        if not history:
            return message
        from google.genai import types

        config = types.GenerateContentConfig(
            system_instruction=REWRITE_INSTRUCTION,
            temperature=0.0,
            max_output_tokens=128,
            candidate_count=1,
        )
        response = self._generate("rewrite", rewrite_prompt(message, history), config)
        text = _text(response).strip().strip('"')
        return text if text else message

    def read_question(
        self, message: str, history: Sequence[tuple[str, str]], now: datetime, language: str
    ) -> ModelReading:
        """The follow-up read in one structured call (``response_schema``): the standalone
        question, the window as ISO days, memory types, intent and keywords. A first
        question (no ``history``) is read offline, and no model is asked (its latency:
        docs/quality.md). A reply that is no such JSON raises BackendUnavailable."""
        if not history:
            return ModelReading(message)
        from google.genai import types

        config = types.GenerateContentConfig(
            system_instruction=READ_INSTRUCTION,
            temperature=0.0,
            max_output_tokens=256,
            candidate_count=1,
            response_mime_type="application/json",
            response_schema=_reading_schema(),
        )
        today = f"{now.date().isoformat()} ({now.strftime('%A')})"
        response = self._generate("read", read_prompt(message, history, today, language), config)
        return _reading(_text(response), message)

    def execute(
        self,
        question: str,
        sources: Sequence[Source],
        analysis: QueryAnalysis,
        strict: bool,
        history: Sequence[tuple[str, str]],
        stream: bool,
    ) -> Pieces:
        """One ``generate_content`` call, or ``generate_content_stream``'s pieces."""
        config = self._config(sources, strict)
        prompt = self._prompt(question, sources, history)
        if stream:
            yield from self._stream(prompt, config)
            return
        response = self._generate("generate", prompt, config)
        text = _text(response)
        if not text:
            raise BackendUnavailable(f"{self.model} returned no text ({_finish(response)})")
        yield text.strip()

    def _stream(self, prompt: str, config: Any) -> Iterator[str]:
        deadline = time.monotonic() + self._timeout_s

        def opened() -> tuple[Iterator[Any], Any]:
            # The SDK sends the request on the first ``next``: retry up to there.
            # Once text has been yielded a failure cannot be retried, only raised.
            pieces = iter(
                self._client.models.generate_content_stream(
                    model=self.model, contents=prompt, config=config
                )
            )
            return pieces, next(pieces, None)

        with unavailable_on_sdk_errors(f"stream with {self.model}"):
            pieces, chunk = self._retry.call(
                f"stream with {self.model}", opened, deadline_s=self._timeout_s
            )
        produced = False
        while chunk is not None:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.model} stream exceeded {self._timeout_s:.1f}s")
            text = _text(chunk)
            if text:
                produced = True
                yield text
            with unavailable_on_sdk_errors(f"stream with {self.model}"):
                chunk = next(pieces, None)
        if not produced:
            raise BackendUnavailable(f"{self.model} streamed no text")


def _reading_schema() -> Any:
    from google.genai import types

    text = types.Schema(type=types.Type.STRING)
    day = types.Schema(type=types.Type.STRING, format="date", nullable=True)
    return types.Schema(
        type=types.Type.OBJECT,
        properties={
            "question": text,
            "first_day": day,
            "last_day": day,
            "memory_types": types.Schema(
                type=types.Type.ARRAY,
                items=types.Schema(type=types.Type.STRING, enum=[t.value for t in MemoryType]),
            ),
            "intent": types.Schema(type=types.Type.STRING, enum=[i.value for i in Intent]),
            "keywords": types.Schema(type=types.Type.ARRAY, items=text),
        },
        required=["question"],
        property_ordering=[
            "question",
            "first_day",
            "last_day",
            "memory_types",
            "intent",
            "keywords",
        ],
    )


def _reading(raw: str, message: str) -> ModelReading:
    """The model's JSON as a reading; what does not parse is dropped field by field, and
    a reply that is no JSON object (or has no question) is a failed call."""
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise BackendUnavailable("the model's reading is no JSON") from exc
    if not isinstance(data, dict) or not isinstance(data.get("question"), str):
        raise BackendUnavailable("the model's reading has no question")
    first, last = _day(data.get("first_day")), _day(data.get("last_day"))
    if first is not None and last is not None and first > last:
        first = last = None
    types_read = tuple(
        MemoryType(t) for t in data.get("memory_types") or () if t in MemoryType._value2member_map_
    )
    intent = data.get("intent")
    keywords = data.get("keywords") or ()
    return ModelReading(
        data["question"].strip() or message,
        first,
        last,
        types_read,
        Intent(intent) if intent in Intent._value2member_map_ else None,
        tuple(k for k in keywords if isinstance(k, str) and k.strip())[:20],
    )


def _day(raw: Any) -> date | None:
    if not isinstance(raw, str):
        return None
    try:
        return date.fromisoformat(raw[:10])
    except ValueError:
        return None


def _text(response: Any) -> str:
    """The text of the first candidate, or "" (blocked, empty, or a function call)."""
    candidates = getattr(response, "candidates", None) or []
    if not candidates or candidates[0].content is None:
        return ""
    parts = candidates[0].content.parts or []
    return "".join(
        p.text for p in parts if getattr(p, "text", None) and not getattr(p, "thought", False)
    )


def _finish(response: Any) -> str:
    candidates = getattr(response, "candidates", None) or []
    if candidates and candidates[0].finish_reason is not None:
        return str(candidates[0].finish_reason)
    feedback = getattr(response, "prompt_feedback", None)
    return f"blocked: {feedback.block_reason}" if feedback is not None else "no candidates"
