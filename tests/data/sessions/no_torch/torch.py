# Put first on PYTHONPATH, this makes "import torch" fail as it does where torch is not installed.
raise ImportError("No module named 'torch' (TileScope test stand-in)")
