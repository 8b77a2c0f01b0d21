"""pysim.core.fragments against the PTX ISA's tables for mma.m16n8k8 with .tf32 (section 9.7.14.5.7, "Matrix
Fragments for mma.m16n8k8"), transcribed here lane by lane from the ISA's words, not from pysim's code:
groupID = laneid >> 2, threadID_in_group = laneid % 4;
A: row groupID (a0, a2) / groupID + 8 (a1, a3), col threadID_in_group (a0, a1) / + 4 (a2, a3);
B: row threadID_in_group (b0) / + 4 (b1), col groupID;
C: row groupID (c0, c1) / groupID + 8 (c2, c3), col threadID_in_group * 2 + (i & 0x1)."""

import numpy as np

from pysim.core.fragments import A_MAP, B_MAP, C_MAP, gather, scatter


def isa_table(matrix):
    table = {}
    for laneid in range(32):
        g, t = laneid >> 2, laneid % 4
        if matrix == "A":
            table[laneid] = [(g, t), (g + 8, t), (g, t + 4), (g + 8, t + 4)]
        elif matrix == "B":
            table[laneid] = [(t, g), (t + 4, g)]
        else:
            table[laneid] = [(g if i < 2 else g + 8, t * 2 + (i & 0x1)) for i in range(4)]
    return table


def test_every_lane_holds_what_the_isa_says():
    for name, frag in (("A", A_MAP), ("B", B_MAP), ("C", C_MAP)):
        table = isa_table(name)
        for lane in range(32):
            assert [tuple(int(v) for v in cell) for cell in frag[lane]] == table[lane], (name, lane)


def test_each_map_covers_its_tile_once():
    for frag, shape in ((A_MAP, (16, 8)), (B_MAP, (8, 8)), (C_MAP, (16, 8))):
        cells = {tuple(int(v) for v in cell) for lane in frag for cell in lane}
        assert len(cells) == frag.shape[0] * frag.shape[1] == shape[0] * shape[1]
        tile = np.arange(shape[0] * shape[1], dtype=np.float32).reshape(shape)
        np.testing.assert_array_equal(scatter(gather(tile, frag), frag, shape), tile)
