"""The typed form of a constraint as data (pydantic), apart from the parser that fills it in.

Why its own module: the ability's input and output models name ``Form``; keeping the data types
here lets the service import the ability without loading the parser, pint or the rules (they load
on the first check).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Modality = Literal["must", "must_not", "may", "only"]


class Band(BaseModel):
    """An allowed (or, for a trigger, a triggering) range of one dimension, in base units."""

    model_config = ConfigDict(extra="forbid")
    dimension: str = Field(max_length=200)
    low: float | None = None
    high: float | None = None
    strict: bool = False
    period: bool = False
    business_days: bool = False
    reference: list[str] = Field(default_factory=list, max_length=50)
    reference_side: Literal["after", "before"] = "after"
    text: str = Field(default="", max_length=2000)


class Window(BaseModel):
    """A forbidden window: minutes after midnight (clock) or month*100+day (calendar), end exclusive
    for clocks and inclusive for calendar days; it may wrap (22:00-07:00)."""

    model_config = ConfigDict(extra="forbid")
    kind: Literal["clock", "calendar"]
    start: int
    end: int


class Order(BaseModel):
    """Event ``first`` must happen before event ``then`` (keys of each event's words)."""

    model_config = ConfigDict(extra="forbid")
    first: list[str] = Field(max_length=50)
    then: list[str] = Field(max_length=50)


class Form(BaseModel):
    """How one constraint was understood (and what a client may send in its place)."""

    model_config = ConfigDict(extra="forbid")
    text: str = Field(max_length=2000)
    modality: Modality
    subject: list[str] = Field(default_factory=list, max_length=50)
    action: list[str] = Field(default_factory=list, max_length=20)
    object: list[str] = Field(default_factory=list, max_length=50)
    agents: list[str] = Field(default_factory=list, max_length=50)
    agent_qualifiers: list[str] = Field(default_factory=list, max_length=20)
    quantity: Band | None = None
    trigger: Band | None = None
    window: Window | None = None
    order: Order | None = None
    exclusion: list[list[str]] = Field(default_factory=list, max_length=2)
    allowed_members: list[str] = Field(default_factory=list, max_length=50)
    # an allow-list of things of one kind ("may go only to the Leeds, Cambridge or Newcastle units"): the
    # keys that tell each member apart, and the kind's noun key ("unit")
    members: list[list[str]] = Field(default_factory=list, max_length=50)
    member_kind: str = Field(default="", max_length=200)
    # an allow-list of names or codes ("only from Claridge Optics, Norland Lens or Vesper Vision", "only to
    # routes 4, 12 and 19"): each member as written, lowercased; the preposition that opens the list's slot
    member_names: list[str] = Field(default_factory=list, max_length=50)
    member_prep: str = Field(default="", max_length=20)
    # the places where the rule's thing may be kept or done ("only on the clinic's secure records server", "only
    # in the north paddock or the display arena"): each place's phrase as written, the preposition before them,
    # and the key of the thing's noun (the rule's subject)
    places: list[str] = Field(default_factory=list, max_length=20)
    place_prep: str = Field(default="", max_length=20)
    place_thing: str = Field(default="", max_length=200)
    # the means a doing may be done with ("Payment may only be taken by card, bank transfer or ...",
    # "Flavourings ... are limited to vanilla, ..."): each member as written (``use_lists``)
    use_members: list[str] = Field(default_factory=list, max_length=50)

    def checkable(self, named_lists: bool = True) -> bool:
        """Is there something here the typed reading checks? A measured part, an agent, an exclusion, an
        allow-list, or a duty or prohibition with its thing named (a bare permission is not checked).
        ``named_lists=False`` leaves out the lists of names and of allowed places: is there anything besides?"""
        if self.quantity or self.trigger or self.window or self.order or self.exclusion or self.allowed_members \
                or self.agents or (self.members and self.member_kind):
            return True
        if named_lists and (self.member_names or (self.places and self.place_thing) or self.use_members):
            return True
        if self.modality == "must_not":
            return bool(self.subject or self.object) and bool(self.action or self.object)
        return self.modality == "must" and bool(self.action) and bool(self.object or self.subject)
