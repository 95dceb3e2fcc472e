# C++ integration tests (GoogleTest) against the local control plane; included by CMakeLists.txt of this folder.
add_executable(integration_tests operator_test.cpp)
target_link_libraries(integration_tests PRIVATE cfo_client cfo_core GTest::gtest_main)
cfo_add_integration_test(operator_e2e ${CMAKE_CURRENT_BINARY_DIR}/integration_tests)
set_property(TEST operator_e2e APPEND PROPERTY ENVIRONMENT "CFO_OPERATOR_BIN=$<TARGET_FILE:codeflare-operator>")
