"""The digest of Lyra's own code that a run's inputs include (``lyra_resources.store.run_inputs``)."""

from lyra_resources.store import run_inputs


def test_the_code_digest_reads_the_source_of_every_package_a_run_executes():
    root = run_inputs.code_root()
    assert all((root / package / "__init__.py").is_file() for package in run_inputs._CODE_PACKAGES)
    assert len(run_inputs.code_digest()) == 64 and run_inputs.code_digest() == run_inputs.code_digest()
