"""The digest of Lyra's own code that a run's inputs include (``lyra_resources.store.run_inputs``)."""

from lyra_resources.store import run_inputs


def test_the_code_digest_reads_the_source_of_every_package_a_run_executes():
    root = run_inputs.code_root()
    assert all((root / package / "__init__.py").is_file() for package in run_inputs._CODE_PACKAGES)
    assert len(run_inputs.code_digest()) == 64 and run_inputs.code_digest() == run_inputs.code_digest()


def test_a_report_counts_as_written_when_all_its_files_are_newer_than_the_graph(tmp_path):
    from datetime import UTC, datetime, timedelta

    report = tmp_path / "reports" / "task_x.md"
    report.parent.mkdir()
    published = datetime.now(UTC).replace(tzinfo=None)  # naive UTC, as the store keeps published_at
    assert not run_inputs.report_written(report, published)  # a run killed before task_report: no files
    for suffix in run_inputs.REPORT_SUFFIXES:
        report.with_suffix(suffix).write_text("report")
    assert run_inputs.report_written(report, published) and run_inputs.report_written(report, None)
    report.with_suffix(".html").unlink()  # killed between two of them
    assert not run_inputs.report_written(report, published)
    report.with_suffix(".html").write_text("report")
    assert not run_inputs.report_written(report, published + timedelta(minutes=5))  # the previous graph's
