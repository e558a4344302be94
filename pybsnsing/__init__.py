"""pybsnsing: classification trees by recursive optimal boolean rule composition."""

__version__ = "0.1.0"
