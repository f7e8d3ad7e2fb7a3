"""An open question that names its exposure and outcome adopts only the claims about both.

The corpus is eight real SciFact abstracts: vitamin D and fractures, but also vitamin D and
mortality or colorectal cancer, vitamin E and prostate cancer, folic acid and gestational
hypertension, statins and hip fracture. Asked "What is the effect of vitamin D on fracture risk?",
the claims asset read the question's relevance alone, and a finding on vitamin D and mortality was
as close in words as one on fractures, and statins' effect on hip fractures as close as vitamin D's.
"""

import json
import re

import pytest
from dagster import DagsterInstance, materialize

from lyra_assets.definitions import ASSETS, build_resources
from lyra_assets.partitions import TASKS_PARTITION
from lyra_resources.store import LyraStore

pytestmark = pytest.mark.slow

DOC_IDS = {275294, 9555784, 23267371, 12074066, 12009265, 4550036, 4687948, 17482507}
QUESTION = "What is the effect of vitamin D on fracture risk?"
FRACTURE = re.compile(r"fractur", re.IGNORECASE)
# fracture papers whose exposure is another: statins, other lipid-lowering drugs, bisphosphonates
OTHER_EXPOSURE = re.compile(r"statin|lipid-lowering|HMG-CoA|bisphosphonate|zoledron", re.IGNORECASE)


def test_an_open_question_adopts_only_claims_about_its_exposure_and_outcome(lyra_home, shared_data, tmp_path):
    rows = [json.loads(line) for line in (shared_data / "scifact" / "corpus.jsonl").open()]
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps(r) + "\n" for r in rows if r["doc_id"] in DOC_IDS))
    store = LyraStore.at(lyra_home)
    task = store.create_task(QUESTION, {"corpus": [str(corpus)]})
    with DagsterInstance.ephemeral() as instance:
        instance.add_dynamic_partitions(TASKS_PARTITION, [task.id])
        result = materialize(ASSETS, partition_key=task.id, resources=build_resources(lyra_home),
                             instance=instance, selection=["papers", "claim_scope", "pages", "fragments",
                                                           "fragment_ranking", "claims"])
    assert result.success
    frame = store.read_partition("claims", task.id)
    extracted = frame[frame["origin"] == "extracted"]
    adopted = extracted[extracted["adoption_status"] == "adopted"]["text"].tolist()
    rejected = extracted[extracted["adoption_status"] != "adopted"]["text"].tolist()
    assert adopted and all(FRACTURE.search(t) for t in adopted), adopted  # the outcome is named
    assert not [t for t in adopted if OTHER_EXPOSURE.search(t)], adopted  # … and the exposure
    assert [t for t in rejected if FRACTURE.search(t) and OTHER_EXPOSURE.search(t)]
    assert [t for t in rejected if not FRACTURE.search(t) and "vitamin D" in t.replace("Vitamin", "vitamin")]
    assert [t for t in adopted if "vitamin D" in t.replace("Vitamin", "vitamin")]
