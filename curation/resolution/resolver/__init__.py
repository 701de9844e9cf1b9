"""The resolver: SPEC §2 in its order, a verdict with its evidence for every reference.

It reads the catalogues and writes nothing. One module per stage:
- `inputs`: what a reference says (`ReferenceInput`, from a parse or an imported cited_work);
- `lookups`: what a batch needs from the catalogues, asked once (`Lookups`);
- `by_identifier`, `by_string`, `by_title`: the decisions of SPEC §2's steps;
- `decide`: the order of the steps for one reference (`resolve_one`) and the batch around it;
- `verdict`: the decision and its evidence (`Verdict`).
"""

from .decide import Resolved, resolve_batch, resolve_inputs, resolve_one, resolve_raw
from .inputs import ReferenceInput
from .lookups import Lookups
from .verdict import RESOLVER_VERSION, Verdict

__all__ = [
    "RESOLVER_VERSION",
    "Lookups",
    "ReferenceInput",
    "Resolved",
    "Verdict",
    "resolve_batch",
    "resolve_inputs",
    "resolve_one",
    "resolve_raw",
]
