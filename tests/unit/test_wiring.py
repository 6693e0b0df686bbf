"""The container: each part built once, on first use, read-only, or supplied prebuilt."""

from __future__ import annotations

import threading

import pytest

from footnote.adapters.memory_store import MemoryStore
from footnote.ports import Store
from footnote.wiring import Container, lazy
from tests.inproc import settings


def test_a_part_is_built_once_even_when_first_asked_for_concurrently() -> None:
    c = Container(settings())
    seen: list[object] = []
    threads = [threading.Thread(target=lambda: seen.append(c.store)) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({id(s) for s in seen}) == 1
    assert isinstance(c.store, MemoryStore) and isinstance(c.store, Store)


def test_parts_are_read_only_and_can_be_supplied_prebuilt() -> None:
    store = MemoryStore()
    c = Container(settings(), store=store)
    assert c.store is store
    with pytest.raises(AttributeError, match="built by the container"):
        c.store = MemoryStore()
    assert isinstance(Container.store, lazy)
    assert "find_nearest" in (Container.vector_fallback.__doc__ or "")  # the builder's doc
