"""Built-in teamwork components, registered through the same hook as any plugin's (by import
path, so listing them imports nothing of Inspect)."""

from __future__ import annotations

from collections.abc import Callable

from gaa.hookspecs import hookimpl

COMPONENTS = "gaa.teamwork.components"


@hookimpl
def register_teamwork_components(register: Callable[..., None]) -> None:
    register(
        "shared_mental_model",
        f"{COMPONENTS}.shared_mental_model:SharedMentalModelComponent",
        description="shared question analysis, agreed facts and debated points",
    )
    register(
        "leadership",
        f"{COMPONENTS}.leadership:LeadershipComponent",
        description="an active leader: mediation, tie-breaks, overrides",
    )
    register(
        "team_orientation",
        f"{COMPONENTS}.team_orientation:TeamOrientationComponent",
        description="specialist roles, hierarchical vote weights, formal report",
    )
    register(
        "trust_network",
        f"{COMPONENTS}.trust_network:TrustNetworkComponent",
        description="dynamic trust scores (0.4-1.0) weighting the vote",
    )
    register(
        "mutual_monitoring",
        f"{COMPONENTS}.mutual_monitoring:MutualMonitoringComponent",
        description="leader challenges the weakest reasoning between turns (needs leadership)",
    )
