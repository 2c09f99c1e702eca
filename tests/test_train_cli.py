"""``nertz train``: the [train] extra and every argument are checked before anything is
rendered or written (rendering a set takes minutes). No training, no torch needed."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nertz.cli import app
import nertz.vision.train as train
import nertz.vision.train_cli as train_cli

NEED_ART = train_cli.need_art


@pytest.fixture
def no_render(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """Rendering and training replaced by stubs that record their calls (and write nothing);
    the card art is not needed (``NEED_ART`` is the real check); ``runs/`` is a temporary
    folder (the tests removed the source tree's ``runs/data/det_s20261130``, a set rendered
    for real, before the sets there were kept)."""
    calls: list[str] = []
    monkeypatch.setattr(train, "RUNS", tmp_path_factory.mktemp("runs"))
    monkeypatch.setattr(train_cli, "need_art", lambda: None)
    import nertz.datasets.audit_export as audit_export
    import nertz.datasets.export as export

    def stub(name: str):
        def f(*args, **kwargs):
            calls.append(name)
            raise train.TrainError(f"stub {name} reached")
        return f

    monkeypatch.setattr(export, "write_dataset", stub("write_dataset"))
    monkeypatch.setattr(audit_export, "write_audit_dataset", stub("write_audit_dataset"))
    monkeypatch.setattr(train, "merge_classify_sets", stub("merge_classify_sets"))
    monkeypatch.setattr(train, "train_detector", stub("train_detector"))
    monkeypatch.setattr(train, "train_classifier", stub("train_classifier"))
    return calls


def _extra(monkeypatch: pytest.MonkeyPatch, installed: bool) -> None:
    real = importlib.util.find_spec
    names = set(train.TRAIN_MODULES + train.EXPORT_MODULES)
    fake = object()
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: (fake if installed else None) if name in names else real(name, *a))


def _run(*args: str):
    return CliRunner().invoke(app, ["train", *args])


@pytest.mark.parametrize("command", ["detector", "classifier", "audit"])
def test_a_missing_train_extra_is_refused_before_rendering(command, no_render, monkeypatch, tmp_path):
    _extra(monkeypatch, installed=False)
    monkeypatch.chdir(Path(__file__).resolve().parents[1])  # audit's default --init models/cards_obb.pt
    r = _run(command)
    assert r.exit_code == 2, r.output
    assert r.output.startswith("error: training needs the [train] extra (torch, ") and "Traceback" not in r.output
    assert no_render == []


@pytest.mark.parametrize(
    "args, says",
    [
        (["classifier", "--imgsz", "-5"], "--imgsz"),  # was cv2.error ... inv_scale_x > 0 after rendering began
        (["classifier", "--kind", "card", "--imgsz", "100000", "--images", "12"], "--imgsz"),  # 30 GB allocation
        (["detector", "--imgsz", "100"], "multiple of 32"),
        (["detector", "--epochs", "0"], "--epochs"),
        (["detector", "--batch", "0"], "--batch"),
        (["audit", "--batch", "-1"], "--batch"),
        (["classifier", "--images", "0"], "--images"),
        (["detector", "--workers", "0"], "--workers"),
        (["detector", "--roll-p", "2"], "--roll-p"),
        (["detector", "--lr0", "0"], "--lr0"),
        (["detector", "--device", "gpu"], "--device"),
        (["detector", "--weights", "nope.pt"], "--weights nope.pt: no such file"),
        (["detector", "--obb", "--init", "nope.pt"], "--init nope.pt: no such file"),
        (["detector", "--init", "models/cards_det.pt"], "only with --obb"),  # was ignored, after rendering
        (["classifier", "--detector-quads", "models/cards_obb.onnx"], "--detector-quads is for --kind card or strip"),
        (["classifier", "--kind", "strip", "--jitter", "0.1"], "--jitter and --jitter-scale are for --kind card"),
        (["detector", "--data", "nope/data.yaml"], "--data nope/data.yaml: no such file"),
        (["classifier", "--data", "nope"], "--data nope: no such folder"),
        (["classifier", "--kind", "cards"], "--kind is 'classify', 'card' or 'strip'"),
        (["classifier", "--kind", "card", "--detector-quads", "nope.onnx"], "--detector-quads nope.onnx: no such file"),
        (["audit", "--init", "nope.pt"], "--init nope.pt: no such file"),
        (["detector", "--out", "models"], "--out models: a folder; --out is the weights' stem"),  # was models.pt/.onnx
        (["classifier", "--out", "models"], "--out models: a folder"),
        (["audit", "--out", "models"], "--out models: a folder"),
        (["audit", "--seed", "9999"], "must lie under 10000"),
    ],
)
def test_bad_arguments_are_refused_before_anything_is_rendered(args, says, no_render, monkeypatch, tmp_path):
    _extra(monkeypatch, installed=True)
    monkeypatch.chdir(Path(__file__).resolve().parents[1])
    r = _run(*args)
    assert r.exit_code == 2, r.output
    assert says in r.output and "Traceback" not in r.output
    assert no_render == []


def test_a_classify_folder_without_train_is_refused(no_render, monkeypatch, tmp_path):
    _extra(monkeypatch, installed=True)
    (tmp_path / "set").mkdir()
    r = _run("classifier", "--data", str(tmp_path / "set"))
    assert r.exit_code == 2 and "no train/ folder" in r.output
    assert no_render == [] and list((tmp_path / "set").iterdir()) == []


def test_good_arguments_with_the_extra_go_on_to_render(no_render, monkeypatch):
    _extra(monkeypatch, installed=True)
    r = _run("detector", "--images", "12", "--imgsz", "64")
    assert r.exit_code == 2 and "stub write_dataset reached" in r.output
    assert no_render == ["write_dataset"]


def test_no_export_needs_no_exporters(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "onnxslim" else object() if name in train.TRAIN_MODULES + ("onnx",)
                        else real(name, *a))
    train.require_train_extra(export=False)
    with pytest.raises(train.TrainError, match=r"onnxslim is missing\): pip install -e '\.\[train\]' \(or train with --no-export"):
        train.require_train_extra(export=True)


def test_a_data_file_is_called_a_file_not_a_missing_folder(no_render, monkeypatch, tmp_path):
    _extra(monkeypatch, installed=True)
    (tmp_path / "t.json").write_text("{}")
    r = _run("classifier", "--data", str(tmp_path / "t.json"))
    assert r.exit_code == 2 and "a file, not a folder" in r.output
    assert no_render == []


@pytest.mark.parametrize("args, stub", [(["audit", "--images", "6"], "write_audit_dataset"),
                                        (["detector", "--obb", "--images", "12"], "write_dataset")])
def test_the_default_weights_are_the_shipped_ones_from_any_folder(args, stub, no_render, monkeypatch, tmp_path):
    """``--init``'s default (``models/cards_obb.pt``, ``models/cards_det.pt`` with ``--obb``) is
    the source tree's, as ``nertz detect`` finds its models: not a path in the current folder
    (was "error: --init models/cards_obb.pt: no such file" outside the repository's root)."""
    _extra(monkeypatch, installed=True)
    monkeypatch.chdir(tmp_path)
    r = _run(*args)
    assert r.exit_code == 2 and f"stub {stub} reached" in r.output, r.output
    assert no_render == [stub] and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", ["detector", "audit"])
def test_a_data_that_is_no_dataset_yaml_is_refused_before_training(command, no_render, monkeypatch, tmp_path):
    """ultralytics refused these with a traceback (``RuntimeError: Dataset ... error``) after
    building the model; a folder was called "no such file"."""
    _extra(monkeypatch, installed=True)
    (tmp_path / "set").mkdir()
    (tmp_path / "set" / "data.yaml").write_text("train: images/train\nval: images/val\nnames: {0: face}\n")
    (tmp_path / "table.json").write_text("{}")
    (tmp_path / "empty.yaml").write_text("names: {0: face}\n")
    for data, says in [("set", "a folder, not the data.yaml of a"), ("table.json", "not a YAML file"),
                       ("empty.yaml", "no train and val in it")]:
        r = _run(command, "--data", str(tmp_path / data))
        assert r.exit_code == 2 and says in r.output and "Traceback" not in r.output, r.output
    assert f"give {tmp_path / 'set' / 'data.yaml'}" in _run(command, "--data", str(tmp_path / "set")).output
    r = _run(command, "--data", str(tmp_path / "set" / "data.yaml"))
    assert r.exit_code == 2 and "stub train_detector reached" in r.output, r.output
    assert no_render == ["train_detector"]


@pytest.mark.parametrize("command", ["detector", "classifier", "audit"])
def test_rendering_a_set_without_the_card_art_is_refused(command, no_render, monkeypatch, tmp_path):
    """Without the art cache the renderer draws placeholder cards (letters on white): the set
    was rendered on them and trained on, silently."""
    _extra(monkeypatch, installed=True)
    monkeypatch.setattr(train_cli, "need_art", NEED_ART)
    monkeypatch.setenv("NERTZ_ART_DIR", str(tmp_path / "no-art"))
    r = _run(command, "--images", "12")
    assert r.exit_code == 2 and "card art not found" in r.output and "fetch_art.sh" in r.output, r.output
    assert no_render == []


@pytest.mark.parametrize("command", ["detector", "classifier", "audit"])
def test_a_rendered_set_without_val_images_stops_before_training(command, no_render, monkeypatch, tmp_path):
    """A few --images render one scene, all of it in one split: ultralytics stopped on the empty
    split with a traceback (FileNotFoundError ... images/val)."""
    import nertz.datasets.audit_export as audit_export
    import nertz.datasets.export as export

    _extra(monkeypatch, installed=True)

    def one_split(*args, **kwargs):
        root = tmp_path / "set"
        (root / "images" / "train").mkdir(parents=True)
        (root / "images" / "val").mkdir(parents=True)
        (root / "images" / "train" / "s0.jpg").write_bytes(b"x")
        (root / "data.yaml").write_text("train: images/train\nval: images/val\n")
        return root / "data.yaml"

    def one_split_classify(*args, **kwargs):
        for split in ("train", "val"):
            (tmp_path / "set" / split / "KH").mkdir(parents=True)
        (tmp_path / "set" / "train" / "KH" / "a.png").write_bytes(b"x")
        return tmp_path / "set"

    monkeypatch.setattr(export, "write_dataset", one_split_classify if command == "classifier" else one_split)
    monkeypatch.setattr(audit_export, "write_audit_dataset", one_split)
    r = _run(command, "--images", "2")
    assert r.exit_code == 2 and "has no val images" in r.output and "more --images" in r.output, r.output
    assert "Traceback" not in r.output and no_render == []


def _fake_set(folder: Path, wanted: dict | None, complete: bool = True) -> Path:
    """A tiny stand-in of a rendered detect set: one image, its recipe file (``wanted``) and
    ``data.yaml`` (``complete``)."""
    import json

    (folder / "images" / "train").mkdir(parents=True)
    (folder / "images" / "val").mkdir(parents=True)
    (folder / "images" / "train" / "s00099_0_0.jpg").write_bytes(b"x")
    (folder / "images" / "val" / "s00000_0_0.jpg").write_bytes(b"x")
    if wanted is not None:
        (folder / train_cli.RECIPE_FILE).write_text(json.dumps(wanted))
    if complete:
        (folder / "data.yaml").write_text("train: images/train\nval: images/val\n")
    return folder


DET_OPTS = dict(frames_per_scene=4, crops_per_frame=3, roll_p=0.0)


def test_an_earlier_complete_set_is_reused_or_refused_never_removed(no_render, monkeypatch, tmp_path):
    """runs/data/<tag> is named by kind and seed only. It was emptied (shutil.rmtree) before
    every render: a set rendered for hours, by this command with other --images or by
    ``nertz synth dataset``, was gone without a word. Now a complete set of the same recipe is
    reused, another is refused naming --rerender, and only the command's own set cut short (its
    recipe file, no data.yaml) is replaced."""
    import nertz.datasets.export as export

    _extra(monkeypatch, installed=True)
    runs = train.RUNS
    folder = runs / "data" / "det_s5"
    rendered: list[bool] = []

    def render(kind, images, seed, out, **kwargs):  # the folder it is given holds the recipe file alone
        rendered.append(sorted(p.name for p in Path(out).iterdir()) == [train_cli.RECIPE_FILE])
        raise train.TrainError("stub write_dataset reached")

    monkeypatch.setattr(export, "write_dataset", render)
    same = train_cli.recipe("detect", 24, 5, **DET_OPTS)

    # a complete set of the same recipe: trained on as it is
    _fake_set(folder, same)
    r = _run("detector", "--images", "24", "--seed", "5")
    assert "stub train_detector reached" in r.output and "reusing the set" in r.output, r.output
    assert rendered == [] and (folder / "images" / "train" / "s00099_0_0.jpg").exists()

    # a complete set of other --images, or without a recipe (nertz synth dataset's): refused, kept
    for wanted in (train_cli.recipe("detect", 2400, 5, **DET_OPTS), None):
        (folder / train_cli.RECIPE_FILE).unlink(missing_ok=True)
        if wanted is not None:
            (folder / train_cli.RECIPE_FILE).write_text(__import__("json").dumps(wanted))
        r = _run("detector", "--images", "24", "--seed", "5")
        assert r.exit_code == 2 and r.output.startswith("error: ") and "--rerender" in r.output, r.output
        assert "Traceback" not in r.output and rendered == []
        assert (folder / "images" / "train" / "s00099_0_0.jpg").exists() and (folder / "data.yaml").exists()
        assert ("images 2400 (now 24)" if wanted else "its options are unknown") in r.output, r.output

    # --rerender replaces it
    r = _run("detector", "--images", "24", "--seed", "5", "--rerender")
    assert "stub write_dataset reached" in r.output and rendered == [True], r.output
    assert "replacing the earlier rendered set" in r.output

    # the command's own render cut short (recipe file, no data.yaml): replaced without asking
    import shutil

    shutil.rmtree(folder)
    _fake_set(folder, train_cli.recipe("detect", 2400, 5, **DET_OPTS), complete=False)
    r = _run("detector", "--images", "24", "--seed", "5")
    assert "stub write_dataset reached" in r.output and rendered == [True, True], r.output
    assert "cut short" in r.output

    # files it did not write (no recipe file, no data.yaml): refused, kept
    shutil.rmtree(folder)
    (folder).mkdir(parents=True)
    (folder / "notes.txt").write_text("mine")
    r = _run("detector", "--images", "24", "--seed", "5")
    assert r.exit_code == 2 and "did not write" in r.output and "--rerender" in r.output, r.output
    assert (folder / "notes.txt").read_text() == "mine" and rendered == [True, True]

    # a link there (to a set kept on another disk) is left alone; a runs/ it cannot write, an error line
    shutil.rmtree(folder)
    folder.symlink_to(tmp_path)
    r = _run("detector", "--images", "24", "--seed", "5", "--rerender")
    assert r.exit_code == 2 and "is a file or a link" in r.output and tmp_path.is_dir(), r.output
    folder.unlink()
    shutil.rmtree(runs / "data")
    (runs / "data").write_text("a file where runs/data should be")
    r = _run("detector", "--images", "24", "--seed", "5")
    assert r.exit_code == 2 and r.output.startswith(f"error: {folder}: cannot render the set there"), r.output
    assert "Traceback" not in r.output and rendered == [True, True]


def test_the_recipe_tells_sets_apart(tmp_path):
    """What makes the files differ makes the recipe differ (not the worker count, which the
    caller leaves out); a detector_quads file is named by its path, size and time."""
    r = train_cli.recipe
    assert r("detect", 24, 5, **DET_OPTS) == r("detect", 24, 5, **DET_OPTS)
    assert r("detect", 24, 5, **DET_OPTS) != r("detect", 25, 5, **DET_OPTS)
    assert r("detect", 24, 5, **DET_OPTS) != r("obb", 24, 5, **DET_OPTS)
    assert r("detect", 24, 5, **DET_OPTS) != r("detect", 24, 5, **{**DET_OPTS, "roll_p": 0.5})
    q = tmp_path / "q.onnx"
    q.write_bytes(b"a")
    first = r("card", 24, 5, detector_quads=str(q))
    import json

    assert json.loads(json.dumps(first)) == first  # as read back from the recipe file
    q.write_bytes(b"ab")
    assert r("card", 24, 5, detector_quads=str(q)) != first


def test_two_data_folders_of_one_name_are_refused(no_render, monkeypatch, tmp_path):
    """merge_classify_sets links each file as <folder name>_<file>: a second folder of the same
    name (crops named alike) had its links dropped as "already there", silently."""
    _extra(monkeypatch, installed=True)
    for parent in ("a", "b"):
        (tmp_path / parent / "cls" / "train" / "KH").mkdir(parents=True)
        (tmp_path / parent / "cls" / "train" / "KH" / "s00000_0.png").write_bytes(b"x")
    r = _run("classifier", "--data", str(tmp_path / "a" / "cls"), "--data", str(tmp_path / "b" / "cls"))
    assert r.exit_code == 2 and "have the same folder name" in r.output, r.output
    assert no_render == []
    r = _run("classifier", "--data", str(tmp_path / "a" / "cls"), "--data", str(tmp_path / "a" / "cls"))
    assert "stub merge_classify_sets reached" in r.output  # the same folder twice merges as before


@pytest.mark.parametrize("command", ["detector", "classifier", "audit"])
def test_an_out_that_cannot_be_written_is_refused_before_rendering(command, no_render, monkeypatch, tmp_path):
    """The weights are exported to --out after the whole training: a file on its path
    (NotADirectoryError in export_onnx's mkdir) or a read-only folder ended the run in a
    traceback then. Now it is refused first; with --no-export --out is not written and not
    checked."""
    import os

    _extra(monkeypatch, installed=True)
    monkeypatch.chdir(Path(__file__).resolve().parents[1])  # audit's default --init models/cards_obb.pt
    (tmp_path / "afile").write_text("mine")
    r = _run(command, "--images", "12", "--out", str(tmp_path / "afile" / "sub" / "cards"))
    assert r.exit_code == 2 and r.output.startswith(f"error: --out {tmp_path / 'afile' / 'sub' / 'cards'}: cannot "
                                                    f"write the weights there, {tmp_path / 'afile'} is a file"), r.output
    (tmp_path / "ro").mkdir()
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if Path(p) == tmp_path / "ro" else real_access(p, mode))
    r = _run(command, "--images", "12", "--out", str(tmp_path / "ro" / "cards"))
    assert r.exit_code == 2 and f"{tmp_path / 'ro'} is not writable" in r.output, r.output
    assert no_render == [] and (tmp_path / "afile").read_text() == "mine"
    if command != "classifier":
        r = _run(command, "--images", "12", "--out", str(tmp_path / "ro" / "cards"), "--no-export")
        assert "stub write" in r.output, r.output


@pytest.mark.parametrize("args", [["detector", "--weights"], ["detector", "--obb", "--init"], ["audit", "--init"],
                                  ["classifier", "--weights"], ["classifier", "--kind", "card", "--detector-quads"]])
def test_a_model_option_naming_a_folder_says_it_is_a_folder(args, no_render, monkeypatch, tmp_path):
    """``--weights runs/detect/cards_det`` (a run's folder, not its weights file) was refused as
    "no such file", though the folder is there: now "a folder, not a model file"."""
    _extra(monkeypatch, installed=True)
    monkeypatch.chdir(Path(__file__).resolve().parents[1])
    (tmp_path / "run" / "weights").mkdir(parents=True)
    r = _run(*args, str(tmp_path / "run"))
    assert r.exit_code == 2 and "Traceback" not in r.output, r.output
    assert r.output.startswith(f"error: {args[-1]} {tmp_path / 'run'}: a folder, not a model file ("), r.output
    assert no_render == []
