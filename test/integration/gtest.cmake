# C++ integration tests (GoogleTest) against the local control plane; included by CMakeLists.txt of this folder.
add_executable(integration_tests operator_support.cpp operator_test.cpp operator_kueue_test.cpp)
target_link_libraries(integration_tests PRIVATE cfo_client cfo_core GTest::gtest_main)
cfo_add_integration_test(operator_e2e ${CMAKE_CURRENT_BINARY_DIR}/integration_tests)
set_property(TEST operator_e2e APPEND PROPERTY ENVIRONMENT "CFO_OPERATOR_BIN=$<TARGET_FILE:codeflare-operator>")

# The offline CLI (render, validate) checked against the real apiserver.
cfo_add_integration_test(cli_render_dry_run ${CMAKE_CURRENT_SOURCE_DIR}/cli_render_dry_run.sh)
set_property(TEST cli_render_dry_run APPEND PROPERTY ENVIRONMENT "CFO_OPERATOR_BIN=$<TARGET_FILE:codeflare-operator>")

# `validate` on the public bug-report cases: no server needed (label "cli").
add_test(NAME cli_cases COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli_cases.sh)
set_tests_properties(cli_cases PROPERTIES LABELS cli TIMEOUT 300
                     ENVIRONMENT "CFO_OPERATOR_BIN=$<TARGET_FILE:codeflare-operator>;UPSTREAM_CRDS=${CFO_UPSTREAM_CRDS};CFO_SHARED_DIR=${CFO_SHARED_DIR}")

# config/ (kustomize) builds, is accepted by the apiserver, and grants exactly what the operator uses.
cfo_add_integration_test(deploy_manifests ${CMAKE_CURRENT_SOURCE_DIR}/deploy_manifests.sh)
