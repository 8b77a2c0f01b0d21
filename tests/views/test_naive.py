"""#/naive in CPython: sectors per request for both maps, one instruction lane by lane, the listing, the device picker. (Was tests/browser/test_naive.py; the shared stepping checks are in
test_stepping.py; the browser keeps one counter check and the embed's header.)"""

from bruteforce import naive, naive_requests


def test_row_map_touches_more_sectors_per_request_than_col(page):
    """The coalescing lesson, with the numbers checked against brute force (SPEC §5 `map`)."""
    M, N, K, T = 32, 32, 8, 32
    page.go(f"#/naive?M={M}&N={N}&K={K}&T={T}&map=col")
    shown = {}
    for map_ in ("col", "row"):
        sectors = int(str(page.find(f'[data-testid="{map_}-sectors"] [data-slot]').getAttribute("data-value")))
        requests = int(str(page.find(f'[data-testid="{map_}-requests"] [data-slot]').getAttribute("data-value")))
        assert sectors == naive(M, N, K, T, map_)["global_sectors"]
        assert requests == naive_requests(M, N, K, T, map_)
        shown[map_] = sectors / requests
        assert page.text(f"{map_}-per-request") == f"{shown[map_]:.3g}"
    assert shown == {"col": 2.5, "row": 16.5}


def test_one_instruction_lane_by_lane(page):
    """At a k step, warp 0 of a 32×32 block: col map 1 sector of A (broadcast) and 4 of B; row map 32 and 1."""
    expected = {"col": {"A": (1, 32, 4), "B": (4, 128, 128)}, "row": {"A": (32, 1024, 128), "B": (1, 32, 4)}}
    for map_, arrays in expected.items():
        page.go(f"#/naive?M=32&N=32&K=8&T=32&map={map_}&step=3")
        for array, (sectors, fetched, used) in arrays.items():
            summary = page.testid(f"sectors-{array}")
            assert summary.getAttribute("data-sectors") == str(sectors), (map_, array)
            assert summary.getAttribute("data-fetched") == str(fetched)
            assert summary.getAttribute("data-used") == str(used)
        figures = [figure for figure in page.all("figure", page.testid("sectors")) if page.visible(figure)]
        drawn = [box for figure in figures for box in page.all('svg .slot-unused[display="inline"]', figure)]
        assert len(drawn) == sum(sectors for sectors, _, _ in arrays.values())  # one box per sector


def test_listing_shows_the_map(page):
    page.go("#/naive?M=8&N=8&K=4&T=4&map=row&step=0")
    code = page.inner_text(page.find(".code"))
    assert "int row = blockIdx.y * 4 + threadIdx.x;" in code
    assert "int col = blockIdx.x * 4 + threadIdx.y;" in code


def test_device_picker_shows_every_preset_by_name(page):
    page.go("#/naive")
    names = [page.text(option) for option in page.all("option", page.testid("input-device"))]
    assert "NVIDIA T4" in names and "NVIDIA GeForce RTX 4090" in names and "NVIDIA RTX A6000" in names
    assert len(names) == 6
