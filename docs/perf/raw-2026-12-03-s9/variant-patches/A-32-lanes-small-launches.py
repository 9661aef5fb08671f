# Variant A: 32 lanes for small 2-way launches (<= 2^15 packs in all).
p='include/MergeAttn/impl/MergeAttn_MergeKernel.hpp'
s=open(p).read()
old='''  LaunchShape shape{128, 1, 1, 1, false};
  while (shape.vector_length < lanes_wanted && shape.vector_length < 32) shape.vector_length *= 2;'''
new='''  LaunchShape shape{128, 1, 1, 1, false};
  while (shape.vector_length < lanes_wanted && shape.vector_length < 32) shape.vector_length *= 2;
  if (num_states == 2 && num_tokens * num_heads * vector_iters <= (std::int64_t(1) << 15))
    shape.vector_length = 32;'''
assert old in s; s=s.replace(old,new); open(p,'w').write(s)
