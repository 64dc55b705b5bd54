# The three shapes per built-in workload that the experiments measure (sourced by their run.sh).
declare -A CRMAP_SHAPES=(
  [bert_ffn]="tokens=1 tokens=32 tokens=512"
  [bert_attention]="batch=1,seq=32 batch=1,seq=128 batch=4,seq=256"
  [resnet_bottleneck]="batch=1,size=14 batch=1,size=56 batch=8,size=28"
  [resnet_stem]="batch=1,size=64 batch=1,size=224 batch=4,size=112"
  [dlrm_mlp]="batch=1 batch=64 batch=1024"
)
CRMAP_WORKLOADS="bert_ffn bert_attention resnet_bottleneck resnet_stem dlrm_mlp"
