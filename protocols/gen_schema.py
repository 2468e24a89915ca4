"""Generate protocols/schema/messages.schema.json from protocols/messages.py.

python -m protocols.gen_schema          # rewrite the checked-in schema
"""

from __future__ import annotations

import json
from pathlib import Path

import msgspec

from protocols.messages import AnyMessage

SCHEMA_PATH = Path(__file__).resolve().parent / "schema" / "messages.schema.json"


def schema_text() -> str:
    schema = msgspec.json.schema(AnyMessage)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "ttr-arena protocol messages"
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


if __name__ == "__main__":
    SCHEMA_PATH.write_text(schema_text())
    print("wrote", SCHEMA_PATH)
