# Never ends: timeout and cancel must end it, and the sleeping child it started.
import subprocess
import sys
import time

import torch

child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)  # tilescope-hang-child"])
print("child", child.pid, flush=True)
torch.mm(torch.randn(4, 4), torch.randn(4, 4))
time.sleep(300)
