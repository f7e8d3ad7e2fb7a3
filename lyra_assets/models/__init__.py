"""The `models` group: the models Lyra trains (``training``) and the judge's adapter learnt from
corrections, with the sensors that retrain and rescore (``adapter``)."""
