# C++ integration tests (GoogleTest) against the local control plane; included by CMakeLists.txt of this folder.
add_executable(integration_tests operator_support.cpp operator_test.cpp operator_kueue_test.cpp
               operator_template_test.cpp)
target_link_libraries(integration_tests PRIVATE cfo_client cfo_core GTest::gtest_main)
cfo_add_integration_test(operator_e2e ${CMAKE_CURRENT_BINARY_DIR}/integration_tests)
set_property(TEST operator_e2e APPEND PROPERTY ENVIRONMENT "CFO_OPERATOR_BIN=$<TARGET_FILE:codeflare-operator>")
# operator_e2e runs an operator on all namespaces: tests whose operators must be the only ones reconciling their
# namespaces take the same lock, so that ctest -j never runs them together.
set_property(TEST operator_e2e APPEND PROPERTY RESOURCE_LOCK cfo_cluster_wide_operator)

# The runtime: two replicas with leader election, a lost lease, metrics and probes, the server-side dry-run gate,
# sharding by label selector.
# Each test starts its own operators, restricted to namespaces of its own (operator_process.cpp).
add_executable(runtime_e2e_tests operator_process.cpp operator_runtime_test.cpp pod_security_e2e_test.cpp)
target_link_libraries(runtime_e2e_tests PRIVATE cfo_client cfo_core GTest::gtest_main)
cfo_add_integration_test(operator_two_replicas ${CMAKE_CURRENT_BINARY_DIR}/runtime_e2e_tests
                         --gtest_filter=LeaderElection.*)
cfo_add_integration_test(operator_metrics ${CMAKE_CURRENT_BINARY_DIR}/runtime_e2e_tests
                         --gtest_filter=Metrics.*:DryRunGate.*)
# --label-selector: one instance reconciles only the workloads of its shard.
cfo_add_integration_test(operator_sharding ${CMAKE_CURRENT_BINARY_DIR}/runtime_e2e_tests
                         --gtest_filter=LabelSelector.*)
# Pod Security: a namespace labelled restricted refuses a workload whose Pods would run as root, naming the field.
cfo_add_integration_test(operator_pod_security ${CMAKE_CURRENT_BINARY_DIR}/runtime_e2e_tests
                         --gtest_filter=PodSecurity.*)
get_filename_component(_cfo_samples_dir ${CMAKE_CURRENT_SOURCE_DIR}/../../config/samples ABSOLUTE)
set_property(TEST operator_two_replicas operator_metrics operator_sharding operator_pod_security APPEND PROPERTY ENVIRONMENT
             "CFO_OPERATOR_BIN=$<TARGET_FILE:codeflare-operator>" "CFO_SAMPLES_DIR=${_cfo_samples_dir}")
set_property(TEST operator_two_replicas operator_metrics operator_sharding operator_pod_security APPEND PROPERTY RESOURCE_LOCK cfo_cluster_wide_operator)

# The offline CLI (render, validate) checked against the real apiserver.
cfo_add_integration_test(cli_render_dry_run ${CMAKE_CURRENT_SOURCE_DIR}/cli_render_dry_run.sh)
set_property(TEST cli_render_dry_run APPEND PROPERTY ENVIRONMENT "CFO_OPERATOR_BIN=$<TARGET_FILE:codeflare-operator>")

# `validate` on the public bug-report cases: no server needed (label "cli").
add_test(NAME cli_cases COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli_cases.sh)
set_tests_properties(cli_cases PROPERTIES LABELS cli TIMEOUT 300
                     ENVIRONMENT "CFO_OPERATOR_BIN=$<TARGET_FILE:codeflare-operator>;UPSTREAM_CRDS=${CFO_UPSTREAM_CRDS};CFO_SHARED_DIR=${CFO_SHARED_DIR}")

# config/ (kustomize) builds, is accepted by the apiserver, and grants exactly what the operator uses.
cfo_add_integration_test(deploy_manifests ${CMAKE_CURRENT_SOURCE_DIR}/deploy_manifests.sh)
