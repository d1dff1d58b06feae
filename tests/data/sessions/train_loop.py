# A small training loop for script-mode session tests: steps come from optimizer.step().
import sys
import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 8))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
steps = int(sys.argv[1]) if len(sys.argv) > 1 else 6
for i in range(steps):
    with torch.autograd.profiler.record_function("train_step"):
        loss = model(torch.randn(16, 32)).pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad()
print("trained", steps, "steps")
