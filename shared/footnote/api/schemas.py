"""Request schemas. Structural validation lives here; limits that depend on
settings (note size, query length) are checked by the services."""

from __future__ import annotations

from typing import Annotated

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    model_validator,
)

from footnote.domain import MemoryType


def _encodable(value: str) -> str:
    """JSON may carry lone surrogates (``"\\ud800"``); Firestore, UTF-8 and every
    response we write cannot. Rejected here, at the edge, for every string field."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("must be valid Unicode (no unpaired surrogates)") from None
    return value


Text = Annotated[StrictStr, AfterValidator(_encodable)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class NoteCreate(_Strict):
    text: Text = Field(max_length=1_000_000)
    title: Text | None = Field(None, max_length=10_000)
    tags: list[Text] | None = Field(None, max_length=1000)
    type: MemoryType | None = None


class NotePatch(_Strict):
    text: Text | None = Field(None, max_length=1_000_000)
    title: Text | None = Field(None, max_length=10_000)
    tags: list[Text] | None = Field(None, max_length=1000)
    type: MemoryType | None = None

    @model_validator(mode="after")
    def _something(self) -> NotePatch:
        if not self.model_fields_set:
            raise ValueError("nothing to change: send text, title, tags or type")
        if "text" in self.model_fields_set and self.text is None:
            raise ValueError("text cannot be null")
        return self


class RagConfigIn(_Strict):
    enable_rag: StrictBool = Field(True, alias="enableRag")
    max_sources: StrictInt = Field(8, alias="maxSources", ge=1, le=12)
    include_citations: StrictBool = Field(True, alias="includeCitations")
    types: list[MemoryType] = Field(default_factory=list, max_length=6)


class ChatRequest(_Strict):
    message: Text = Field(max_length=100_000)
    conversation_id: Text | None = Field(
        None, alias="conversationId", min_length=1, max_length=100, pattern=r"^[A-Za-z0-9_-]+$"
    )
    rag_config: RagConfigIn = Field(
        default_factory=lambda: RagConfigIn.model_validate({}), alias="ragConfig"
    )


class SearchRequest(_Strict):
    query: Text = Field(max_length=100_000)
    k: StrictInt = Field(8, ge=1, le=50)
