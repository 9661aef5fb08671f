// GoogleTest main for MergeAttn's tests: initialises Kokkos around the run (not when only listing
// the tests, so that ctest can discover them on a machine without the GPU a CUDA build targets).
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <iostream>

int main(int argc, char* argv[]) {
  ::testing::InitGoogleTest(&argc, argv);
  if (::testing::GTEST_FLAG(list_tests)) return RUN_ALL_TESTS();
  Kokkos::initialize(argc, argv);
  int result = 0;
  {
    std::cout << "Kokkos " << KOKKOS_VERSION << ", default execution space "
              << Kokkos::DefaultExecutionSpace::name() << "\n";
    result = RUN_ALL_TESTS();
  }
  Kokkos::finalize();
  return result;
}
