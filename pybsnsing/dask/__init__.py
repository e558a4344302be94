"""bsnsing trees on a Dask cluster (issue 20; the optional extra ``dask``).

``pip install "pybsnsing[dask]"``, then::

    import dask.dataframe as dd
    from distributed import Client
    from pybsnsing.dask import bsnsing_dask

    client = Client("tcp://scheduler:8786")          # or a LocalCluster
    model = bsnsing_dask("y ~ .", dd.read_parquet("data/"), client, max_rules=2)

The result is the same :class:`~pybsnsing.model.BsnsingModel` (or
:class:`~pybsnsing.model.MBsnsingModel`) as :func:`pybsnsing.bsnsing` gives on the same
rows, node for node; :func:`pybsnsing.bsnsing` itself dispatches a Dask DataFrame here.
:func:`predict_dask` predicts a Dask DataFrame partition by partition.  How the fit is
split between the driver and the workers, and its limits: :mod:`pybsnsing.dask._fit`.
"""

from __future__ import annotations

from ._fit import DaskFitInfo, bsnsing_dask, is_dask_frame, predict_dask

__all__ = ["DaskFitInfo", "bsnsing_dask", "is_dask_frame", "predict_dask"]
