"""The puzzles' reference solutions stay out of the site and the full course package (a student could read
them there); the starters, which the page loads into the editor, are in."""

import io
import zipfile

from tools.sitebuild import paths, scorm

SOLUTIONS = sorted((paths.PYSIM / "play" / "solutions").glob("*.py"))
STARTERS = sorted((paths.PYSIM / "play" / "starters").glob("*.py"))


def shipped(files: dict[str, bytes]) -> dict[str, bytes]:
    """Every file by name, with the members of the Python archive (tilelab.zip) inside it opened too."""
    found = dict(files)
    for name, data in files.items():
        if name.endswith(paths.PYTHON_ARCHIVE):
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                found.update({f"{name}!{member}": archive.read(member) for member in archive.namelist()})
    return found


def assert_withheld(files: dict[str, bytes]) -> None:
    everything = shipped(files)
    assert any(name.endswith(f"{paths.PYTHON_ARCHIVE}!pysim/play/puzzles.py") for name in everything)
    for starter in STARTERS:  # the check sees into the archive: the starters are found there
        assert any(data == starter.read_bytes() for data in everything.values()), starter.name
    assert not [name for name in everything if "solutions" in name]
    for solution in SOLUTIONS:  # not under another name either
        assert not [name for name, data in everything.items() if data == solution.read_bytes()], solution.name


def test_the_site_ships_no_reference_solution(dist):
    assert SOLUTIONS and STARTERS
    assert_withheld(
        {path.relative_to(dist).as_posix(): path.read_bytes() for path in dist.rglob("*") if path.is_file()}
    )


def test_the_full_course_package_ships_no_reference_solution(tmp_path):
    package = scorm.full_package(tmp_path)
    with zipfile.ZipFile(package) as archive:
        assert_withheld({name: archive.read(name) for name in archive.namelist()})
