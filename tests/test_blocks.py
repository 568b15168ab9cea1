"""Blocking, as the services keep it."""

import pytest

from games.models import Block
from games.services import blocks
from games.services.record import MoveRefused


def test_a_block_is_kept_once_and_undone(alice, bob, carol):
    blocks.block(alice, bob)
    blocks.block(alice, bob)
    assert Block.objects.count() == 1
    assert blocks.blocks(alice.pk, bob.pk) and not blocks.blocks(bob.pk, alice.pk)
    assert blocks.blocked_ids(alice) == {bob.pk}
    assert blocks.blocking_any(bob.pk, [alice.pk, carol.pk]) == {alice.pk}
    blocks.unblock(alice, bob)
    assert blocks.blocked_ids(alice) == set()


def test_nobody_blocks_themselves(alice):
    with pytest.raises(MoveRefused):
        blocks.block(alice, alice)
    assert not Block.objects.exists()
