"""Built-in teamwork components, registered through the same hook as any plugin's."""

from __future__ import annotations

from collections.abc import Callable

from gaa.hookspecs import hookimpl
from gaa.teamwork.components.leadership import LeadershipComponent
from gaa.teamwork.components.mutual_monitoring import MutualMonitoringComponent
from gaa.teamwork.components.shared_mental_model import SharedMentalModelComponent
from gaa.teamwork.components.team_orientation import TeamOrientationComponent
from gaa.teamwork.components.trust_network import TrustNetworkComponent


@hookimpl
def register_teamwork_components(register: Callable[..., None]) -> None:
    register(
        "shared_mental_model",
        SharedMentalModelComponent,
        description="shared question analysis, agreed facts and debated points",
    )
    register(
        "leadership",
        LeadershipComponent,
        description="an active leader: mediation, tie-breaks, overrides",
    )
    register(
        "team_orientation",
        TeamOrientationComponent,
        description="specialist roles, hierarchical vote weights, formal report",
    )
    register(
        "trust_network",
        TrustNetworkComponent,
        description="dynamic trust scores (0.4-1.0) weighting the vote",
    )
    register(
        "mutual_monitoring",
        MutualMonitoringComponent,
        description="leader challenges the weakest reasoning between turns (needs leadership)",
    )
