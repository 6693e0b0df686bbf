"""Request schemas. Structural validation lives here; limits that depend on
settings (note size, query length) are checked by the services."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr, model_validator

from footnote.domain import MemoryType


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class NoteCreate(_Strict):
    text: StrictStr = Field(max_length=1_000_000)
    title: StrictStr | None = Field(None, max_length=10_000)
    tags: list[StrictStr] | None = Field(None, max_length=1000)
    type: MemoryType | None = None


class NotePatch(_Strict):
    text: StrictStr | None = Field(None, max_length=1_000_000)
    title: StrictStr | None = Field(None, max_length=10_000)
    tags: list[StrictStr] | None = Field(None, max_length=1000)
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
    message: StrictStr = Field(max_length=100_000)
    conversation_id: StrictStr | None = Field(
        None, alias="conversationId", min_length=1, max_length=100, pattern=r"^[A-Za-z0-9_-]+$"
    )
    rag_config: RagConfigIn = Field(
        default_factory=lambda: RagConfigIn.model_validate({}), alias="ragConfig"
    )


class SearchRequest(_Strict):
    query: StrictStr = Field(max_length=100_000)
    k: StrictInt = Field(8, ge=1, le=50)
