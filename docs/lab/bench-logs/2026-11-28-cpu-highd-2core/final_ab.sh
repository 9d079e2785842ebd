# Run in the folder holding the .npy/.csv files (see README.md); BASE and NEW name the two kmeans-cli builds.
./abcpu.sh b1m_d2.npy init_d2.csv 100 40 3
./abcpu.sh b200k_d16_k100.npy init_d16_k100.csv 100 40 3
./abcpu.sh b200k_d16_k1000.npy init_d16_k1000.csv 1000 10 3
./abcpu.sh b200k_d64_k100.npy init_d64_k100.csv 100 20 3
./abcpu.sh b200k_d64.npy init_d64.csv 1000 5 3
./abcpu.sh b200k_d128_k100.npy init_d128_k100.csv 100 10 3
./abcpu.sh b200k_d128_k1000.npy init_d128_k1000.csv 1000 3 3
