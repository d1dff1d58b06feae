# Fails halfway: the session must fail clearly and keep the partial trace.
import torch

x = torch.randn(8, 8)
y = torch.mm(x, x)
raise ValueError("tilescope test crash")
