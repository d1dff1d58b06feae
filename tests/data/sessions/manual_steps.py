# Script mode with explicit tilescope.step() and no optimizer.
import torch
import tilescope

x = torch.randn(64, 64)
for i in range(5):
    with tilescope.region("manual_region"):
        x = torch.tanh(x @ x)
    tilescope.step()
