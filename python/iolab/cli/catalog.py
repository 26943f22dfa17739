"""`iolab catalog`: list and show the catalog (VMs, disks, services, protocols).

``iolab catalog list [vms|disks|services|protocols]`` prints a table per section (all of
them without an argument); ``iolab catalog show ID`` prints one entry field by field.
Values marked ``*`` are assumptions, not published figures. ``--json`` prints a list of
objects (``show``: one object), each with its ``id`` and ``kind`` and every value in base
units. ``--catalog FILE`` (repeatable) adds the user's files over the bundled data.
``--region NAME`` shows that region's prices and the rows of its cloud alone (default: each
cloud's rows in its default region, ``eastus`` for Azure, ``us-central1`` for Google Cloud);
``--cloud CLOUD`` lists one cloud's rows. A price the region does not publish shows as
missing, never as another region's. ``iolab catalog import-prices``
turns pages saved from the Azure Retail Prices API into a catalog file.
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Optional

import typer

from .command_line import Command, Group
from .common import CATALOG_OPTION, JSON_OPTION, console, print_json
from .pricing import PRICING_OPTION, PricingModel

REGION_OPTION = typer.Option(
    None, "--region", help="Region whose prices to show: an Azure region (armRegionName: eastus, westeurope, ...), "
    "a Google Cloud one (us-central1, ...) or an AWS one (us-east-1); default: each cloud's default region "
    "(eastus, us-central1, us-east-1).",
    metavar="NAME",
)

app = typer.Typer(help="List and show the catalog (VMs, disks, services, protocols).", no_args_is_help=True, cls=Group)


class Section(str, Enum):
    """The sections ``iolab catalog list`` can show."""

    vms = "vms"
    disks = "disks"
    services = "services"
    protocols = "protocols"



#: where --region applies: rows with prices (protocols and the defaults have none).
REGION_APPLIES = "to rows with prices (VMs, disks, services); protocols and the defaults have none"


def _priced(cat, pricing: Optional[PricingModel]):
    """The catalog with its VMs priced at ``pricing`` (a reservation or savings plan's rate)."""
    if pricing is None:
        return cat
    from ..plan.pricing import priced
    from ..plan.requirements import Pricing

    return priced(cat, Pricing(model=pricing.value))


@app.command("list", cls=Command)
def list_(
    ctx: typer.Context,
    section: Optional[Section] = typer.Argument(None, help="Which section to list; all of them when omitted."),
    json_: bool = JSON_OPTION,
    catalog: Optional[list[Path]] = CATALOG_OPTION,
    region: Optional[str] = REGION_OPTION,
    cloud: Optional[str] = typer.Option(None, "--cloud", help="List the rows of this cloud alone: azure, gcp, aws.",
                                        metavar="CLOUD"),
    pricing: Optional[PricingModel] = PRICING_OPTION,
    match: Optional[list[str]] = typer.Option(None, "--match", metavar="GLOB", help="List only the rows whose id "
                                              "matches this pattern, any case (repeatable): 'Standard_D*s_v5', "
                                              "'n2-standard-*', 'm6i.*', 'P3?'."),
) -> None:
    """List catalog entries as tables (or, with --json, as a list of objects with id and kind)."""
    from .catalog_view import _rows, _tables, by_cloud, entry_json, matching
    from .pairing import refuse_given

    if section == Section.protocols:
        refuse_given(ctx, REGION_APPLIES, "--region", "--cloud", "--pricing")
    cats = [_priced(c, pricing) for c in by_cloud(catalog, region, cloud)]
    if match:
        cats = matching(cats, match, [s.value for s in ([section] if section else list(Section))])
    sections = [section] if section else list(Section)
    listed = [(s, cat) for s in sections for cat in (cats[:1] if s == Section.protocols else cats)]
    if json_:
        print_json([entry_json(row, cat) for s, cat in listed for row in _rows(cat, s)])
        return
    for s, cat in listed:
        if match and not _rows(cat, s):
            continue  # no row of this cloud matches: no empty table
        for table in _tables(cat, s):
            console.print(table)


@app.command("show", cls=Command)
def show(
    ctx: typer.Context,
    id: str = typer.Argument(..., help="A catalog id (Standard_DS13, P30, premium-v2, anf-ultra, nfs3) or 'defaults'."),
    json_: bool = JSON_OPTION,
    catalog: Optional[list[Path]] = CATALOG_OPTION,
    region: Optional[str] = REGION_OPTION,
    pricing: Optional[PricingModel] = PRICING_OPTION,
) -> None:
    """Show one catalog entry with every field, its source and its assumptions, priced in --region
    (a region of the entry's cloud; default: its cloud's default region)."""
    from .catalog_view import SECTION, _show_table, entry_json, priced_entry
    from .pairing import refuse_given

    row, cat = priced_entry(catalog, id, region)
    if pricing is not None and type(row) in SECTION:
        cat = _priced(cat, pricing)
        row = cat.entry(id)[1]
    if type(row) not in SECTION:
        refuse_given(ctx, REGION_APPLIES, "--region", "--pricing")
    if json_:
        print_json(entry_json(row, cat))
        return
    console.print(_show_table(row, cat))


@app.command("import-prices", cls=Command)
def import_prices(
    files: list[Path] = typer.Argument(..., help="Pages saved from the Azure Retail Prices API (JSON).",
                                       show_default=False, metavar="FILE"),
    output: Optional[Path] = typer.Option(None, "-o", "--output", help="Write the catalog file here "
                                          "(default: standard output).", metavar="OUT"),
    force: bool = typer.Option(False, "--force", help="Overwrite OUT when it exists."),
    region: Optional[str] = typer.Option(None, "--region", help="Keep this region's prices (needed when the "
                                         "pages hold several regions).", metavar="NAME"),
    json_: bool = JSON_OPTION,
    catalog: Optional[list[Path]] = CATALOG_OPTION,
) -> None:
    """Turn saved Azure Retail Prices API pages into a catalog file that --catalog takes.

    Keeps Linux pay-as-you-go VM prices, managed disk (LRS) prices, Premium SSD v2 / Ultra unit
    prices and Azure NetApp Files capacity prices for ids the catalog has; says how many items
    it skipped and why.
    """
    from ..errors import InputError
    from .catalog_import import import_prices as run_import
    from .pairing import refuse_alone

    if json_ and output is None:
        raise InputError("--json prints the summary: give -o OUT for the catalog file", field="--json")
    if output is None:
        refuse_alone("--force", force, "with -o OUT (it replaces an existing one)")
    summary = run_import(files, output=output, force=force, region=region, catalog=list(catalog or ()))
    if json_:
        print_json(summary)
