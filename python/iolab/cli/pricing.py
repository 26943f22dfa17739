"""``--pricing MODEL`` (plan, catalog list and show): how the buyer pays for the VMs."""

from __future__ import annotations

from enum import Enum

import typer

__all__ = ["PricingModel", "PRICING_OPTION"]


class PricingModel(str, Enum):
    """The pricing models of ``pricing.model`` in a requirements file."""

    payg = "payg"
    reserved_1y = "reserved-1y"
    reserved_3y = "reserved-3y"
    savings_1y = "savings-1y"
    savings_3y = "savings-3y"


PRICING_OPTION = typer.Option(
    None, "--pricing", metavar="MODEL",
    help="How the VMs are paid for: payg, reserved-1y, reserved-3y, savings-1y, savings-3y "
         "(overrides the requirements' pricing.model; reserved and savings rates come from the VM rows' "
         "rates_per_hour, which catalog import-prices writes).")
