"""Build versions on rounds: every round stores the version and content hash of the build it is
played with (``rounds.build_version``, ``rounds.build_hash``), and is replayed, verified and
finished with that version, whatever is current.

Backfill. The first release (commit b87cf75, schema 0001) played the builds' version 1.0 (Forge
of Gems before its retune and with fresh cells landing split, Forge of Fortunes before its feature
strips were regenerated); the release of 0002 plays version 2.0 (Gemstones Gold's build did not
change: 1.0 in both). A round of the first release is told by its first step: that release played
a step when asked, after creating the round, so the step's ``created_at`` is later than the
round's; the release of 0002 decides the whole round at the stake and stores every step with the
round's own ``created_at``. (A round of the first release still open at the upgrade to 0002 has
its first step(s) from then, and the rest decided later: its first step tells it too. Migration
0002 set ``revealed_at = created_at`` on the first release's steps, which does not tell them from a
step revealed at the stake.) A round without steps (voided while deciding it) has no maths: it
gets the current version. Rounds of a build neither release shipped (a plugin game) get version
"" and no hash: they are played with the build's current version.

Revision ID: 0003_build_versions
Revises: 0002_decided_rounds
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003_build_versions"
down_revision = "0002_decided_rounds"
branch_labels = None
depends_on = None

# (game, build) -> (version, content hash): frozen here (src/reelforge/games/published.toml locks them).
FIRST_RELEASE = {
    ("forge-of-fortunes", "84.2"): ("1.0", "f0b29a10b2e9b10639f98ef32a226d532dc0447e8cf2f76102f73c1bdc57a25b"),
    ("forge-of-fortunes", "87.2"): ("1.0", "2432d5a8e1b9f912dec5a84238c65041c6854b66fee886d785c22fa079af9a92"),
    ("forge-of-fortunes", "91.2"): ("1.0", "fd9c88774bad8aaa50924e3cf95f0d3996cf3aea1360cd4a9f8f94c5a2765903"),
    ("forge-of-fortunes", "94.2"): ("1.0", "4fe59b8eabee8ff3a50e0435602022f638f60b21b7e3416be124a32d91bcdc54"),
    ("forge-of-fortunes", "96.2"): ("1.0", "4e243900e6593739eae847efead7b1d3f7911f094b6e463865af7837992f6c91"),
    ("forge-of-gems", "84.2"): ("1.0", "16a432cf3102eed1633f318a0619910dec593452277f8dfcb7b5976d7248c1e2"),
    ("forge-of-gems", "87.2"): ("1.0", "8ed80d27b1b4157bca2fbc6424d765ae4f4525bf02a7cb07f659c1868af40bdc"),
    ("forge-of-gems", "91.2"): ("1.0", "fd863f910ef6fbd924a4d810660f2644758c2e5e240f0974aec8ff84f25e48e8"),
    ("forge-of-gems", "94.2"): ("1.0", "e026a511a6fa2ab05f5a4d231a91b14017698cb4354fc878a725a443e71e3b4b"),
    ("forge-of-gems", "96.2"): ("1.0", "2a961bb078e93f5f05837e74469ec3509b6ca63933a92b68f80bcbb11e6841c6"),
    ("gemstones-gold", "96.71"): ("1.0", "f27f41698d1321053b1f713a908c841faaa77231c3aeef28d5e556c3c8123612"),
}
SECOND_RELEASE = {
    ("forge-of-fortunes", "84.2"): ("2.0", "bf7acccd30304a1ef4c89c85cbb08b0b4a793dbd9e250722e47e5da695a35d08"),
    ("forge-of-fortunes", "87.2"): ("2.0", "92fe9f866daeeafd4f5c56eff1bb4db7fe7169ef46aafbaa8f5b36d082e293f4"),
    ("forge-of-fortunes", "91.2"): ("2.0", "358da5b00c2bd9363e33c8ade694d27ac0dd3f7dacd90e9af2b5675e81eada05"),
    ("forge-of-fortunes", "94.2"): ("2.0", "caefd9bf339ddde958347b6bb6eb246ee229dfeb3a91145c18e9cf081d213fa2"),
    ("forge-of-fortunes", "96.2"): ("2.0", "fff3a4b68f89458d065df4efa56b7d6b5b281e5f8906fa0ba94e83369a751660"),
    ("forge-of-gems", "84.2"): ("2.0", "26ce546dfda4085a3a0ea5bcbbdaf779dbbbb3d9bf2d21056c2fc5b3ee107632"),
    ("forge-of-gems", "87.2"): ("2.0", "c380728d10e2d6d33e7c00dab18560ec66ffe1a45d0e9c287eca48328209cd50"),
    ("forge-of-gems", "91.2"): ("2.0", "9ecebb58e8e118a34ec3fe3af38c057ceff478e8ba7d16e133e2e0b5efe45755"),
    ("forge-of-gems", "94.2"): ("2.0", "c2afff3f877dc2e0bad6c6b2ccc0e6f110d4770ee21c0e80371dcc9583cbb774"),
    ("forge-of-gems", "96.2"): ("2.0", "4b7645eef1ef04edf8d1f74c87abc3ab18412fff224a8be3ae5c8becbe9b6445"),
    ("gemstones-gold", "96.71"): ("1.0", "f27f41698d1321053b1f713a908c841faaa77231c3aeef28d5e556c3c8123612"),
}

_rounds = sa.table("rounds", sa.column("id"), sa.column("game"), sa.column("build"), sa.column("created_at"),
                   sa.column("build_version"), sa.column("build_hash"))
_steps = sa.table("steps", sa.column("round_id"), sa.column("idx"), sa.column("created_at"))


def upgrade() -> None:
    with op.batch_alter_table("rounds") as batch:
        batch.add_column(sa.Column("build_version", sa.String(16)))
        batch.add_column(sa.Column("build_hash", sa.String(64)))
    played_step_by_step = sa.exists().where(_steps.c.round_id == _rounds.c.id, _steps.c.idx == 0,
                                            _steps.c.created_at != _rounds.c.created_at)
    for releases, which in ((FIRST_RELEASE, played_step_by_step), (SECOND_RELEASE, sa.true())):
        for (game, build), (version, digest) in releases.items():
            op.execute(_rounds.update()
                       .where(_rounds.c.game == game, _rounds.c.build == build, _rounds.c.build_version.is_(None),
                              which)
                       .values(build_version=version, build_hash=digest))
    op.execute(_rounds.update().where(_rounds.c.build_version.is_(None)).values(build_version=""))
    with op.batch_alter_table("rounds") as batch:
        batch.alter_column("build_version", existing_type=sa.String(16), nullable=False)


def downgrade() -> None:
    with op.batch_alter_table("rounds") as batch:
        batch.drop_column("build_hash")
        batch.drop_column("build_version")
