import json, gzip, sys
def load(p):
    return json.load(gzip.open(p))
# nccl_parser: one allreduce (args on the kernel and on record_param_comms) and one broadcast whose kernel
# args are dropped (older Kineto records them only on record_param_comms).
d = load('nccl_parser_config_nccl_data.json.gz')
ev = d['traceEvents']
keep = []
def ext(e): return e.get('args', {}).get('External id')
for kext, strip in ((2099, False), (114, True)):
    k = next(e for e in ev if e.get('cat') == 'kernel' and ext(e) == kext)
    corr = k['args']['correlation']
    launch = next(e for e in ev if e.get('cat') in ('cuda_runtime', 'cuda_driver') and e.get('args', {}).get('correlation') == corr)
    ops = [e for e in ev if e.get('cat') in ('cpu_op', 'user_annotation') and e.get('tid') == launch['tid'] and e['ts'] <= launch['ts'] <= e['ts'] + e['dur'] and e['dur'] < 2000]
    spans = [e for e in ev if e.get('cat') == 'gpu_user_annotation' and e['dur'] < 10000 and e['ts'] <= k['ts'] and k['ts'] + k['dur'] <= e['ts'] + e['dur']]
    if strip:
        k = dict(k); k['args'] = {a: v for a, v in k['args'].items() if a in ('External id', 'queued', 'device', 'context', 'stream', 'correlation', 'registers per thread', 'shared memory', 'grid', 'block')}
    keep += ops + [launch, k] + spans
keep.sort(key=lambda e: e['ts'])
out = {'schemaVersion': d['schemaVersion'], 'deviceProperties': d['deviceProperties'][:1], 'distributedInfo': d['distributedInfo'], 'traceEvents': keep}
json.dump(out, open(sys.argv[1] + '/nccl_allreduce_broadcast.json', 'w'), indent=0)
# trace_filter_sampled: NCCL SendRecv kernels with no message size anywhere (the sampled trace lost their ops).
d = load('trace_filter_sampled_rank-0.json.gz')
ks = [e for e in d['traceEvents'] if e.get('cat') == 'kernel' and e['name'].startswith('ncclKernel_SendRecv')][:2]
out = {'schemaVersion': d['schemaVersion'], 'distributedInfo': d['distributedInfo'], 'traceEvents': ks}
json.dump(out, open(sys.argv[1] + '/nccl_sendrecv_no_size.json', 'w'), indent=0)
