"""The claims asset adopts claims about the question, not about a neighbouring topic.

The corpus is eight real SciFact abstracts a vitamin D fracture question retrieves: vitamin D and
fractures, vitamin D and mortality or colorectal cancer, but also vitamin E and prostate cancer,
folic acid and gestational hypertension, statins and hip fracture. By cosine alone (threshold
0.25) the vitamin E and folic acid findings were adopted. Asked as an open question ("What is the
effect of vitamin D on fracture risk?"), the question's relevance alone adopted a finding on vitamin
D and mortality as readily as one on fractures, and statins' effect on hip fractures as vitamin D's:
now only claims about the question's exposure and outcome are adopted.
"""

import json
import re

import pytest
from dagster import DagsterInstance, materialize

from lyra_assets.definitions import TASK_RUN_ASSETS, build_resources
from lyra_assets.partitions import TASKS_PARTITION
from lyra_resources.store.lyra_store import LyraStore

pytestmark = pytest.mark.slow

DOC_IDS = {275294, 9555784, 23267371, 12074066, 12009265, 4550036, 4687948, 17482507}
FRACTURE = re.compile(r"fractur", re.IGNORECASE)
# fracture papers whose exposure is another: statins, other lipid-lowering drugs, bisphosphonates
OTHER_EXPOSURE = re.compile(r"statin|lipid-lowering|HMG-CoA|bisphosphonate|zoledron", re.IGNORECASE)


def _claims(question: str, lyra_home, shared_data, tmp_path) -> tuple[list[str], list[str], object]:
    """The extracted claims the claims asset adopts and leaves for ``question`` on the eight abstracts."""
    rows = [json.loads(line) for line in (shared_data / "scifact" / "corpus.jsonl").open()]
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps(r) + "\n" for r in rows if r["doc_id"] in DOC_IDS))
    store = LyraStore.at(lyra_home)
    task = store.create_task(question, {"corpus": [str(corpus)]})
    with DagsterInstance.ephemeral() as instance:
        instance.add_dynamic_partitions(TASKS_PARTITION, [task.id])
        result = materialize(
            TASK_RUN_ASSETS,
            partition_key=task.id,
            resources=build_resources(lyra_home),
            instance=instance,
            selection=["papers", "claim_scope", "pages", "fragments", "fragment_ranking", "claims"],
        )
    assert result.success
    frame = store.read_partition("claims", task.id)
    extracted = frame[frame["origin"] == "extracted"]
    adopted = extracted[extracted["adoption_status"] == "adopted"]["text"].tolist()
    rejected = extracted[extracted["adoption_status"] != "adopted"]["text"].tolist()
    return adopted, rejected, frame


def _names_vitamin_d(text: str) -> bool:
    return "vitamin D" in text.replace("Vitamin", "vitamin")


def test_vitamin_e_and_folic_acid_findings_are_not_adopted_for_a_vitamin_d_fracture_question(
    lyra_home, shared_data, tmp_path
):
    adopted, rejected, frame = _claims(
        "Does vitamin D supplementation reduce fracture risk?", lyra_home, shared_data, tmp_path
    )
    assert not [t for t in adopted if "vitamin E" in t or "folic acid" in t], adopted
    assert [t for t in rejected if "vitamin E" in t]  # extracted, kept in the graph, not adopted
    assert [t for t in adopted if _names_vitamin_d(t)]
    assert frame["relevance"].between(-1, 1).all()


def test_an_open_question_adopts_only_claims_about_its_exposure_and_outcome(lyra_home, shared_data, tmp_path):
    adopted, rejected, _ = _claims(
        "What is the effect of vitamin D on fracture risk?", lyra_home, shared_data, tmp_path
    )
    assert adopted and all(FRACTURE.search(t) for t in adopted), adopted  # the outcome is named
    assert not [t for t in adopted if OTHER_EXPOSURE.search(t)], adopted  # … and the exposure
    assert [t for t in rejected if FRACTURE.search(t) and OTHER_EXPOSURE.search(t)]
    assert [t for t in rejected if not FRACTURE.search(t) and _names_vitamin_d(t)]
    assert [t for t in adopted if _names_vitamin_d(t)]
