"""Embedded English word list, most frequent first, for segmenting glued words.

Hand-assembled: general English function words, then common words of scholarly titles
(computing, physics, life and social sciences). Rank stands in for frequency.
"""

WORDS = """
the of and to a in for is on that by with as at from it be this an are or was which
not but have has we our can its their all more new using based via toward towards
into over under between through without within about after before when where how why
what who than also these those such one two three four five six ten first second
most each other some any no only very both up out so if then there may use used
large small high low deep fast better best efficient effective scalable robust
learning training model models data network networks neural system systems analysis
approach method methods study studies language languages program programs programming
machine machines computing computation computational compiler compilers graph graphs
distributed parallel parallelism pipeline memory performance optimization optimizing
optimize optimized automatic automated automating automatically framework frameworks
design theory algorithm algorithms problem problems application applications time
information process processing image images vision recognition detection object
objects representation representations scale scaling level multi single general
generative generation generating transformer transformers attention survey review
evaluation evaluating benchmark benchmarks dataset datasets test testing tests tested
bug bugs error errors fault faults failure failures silent checking check checks
verification verifying verified verify equivalence proof proofs formal semantic
semantics search code source software library libraries tool tools toolkit
structure structures function functions field fields quantum physics theory
dynamics energy state states space spaces order orders group groups matrix matrices
linear nonlinear random stochastic gradient gradients descent loss losses
convergence convex sparse sparsity dense tensor tensors operator operators
inter intra interface interfaces hardware software accelerator accelerators gpu gpus
cluster clusters cloud server servers serving inference latency throughput
communication collective reduce reduced reduction allreduce all gather scatter
broadcast synchronization synchronize synchronized synchronizing synchronous
asynchronous consistency consistent correct correctly correctness incorrect
wrong right fix fixed fixes fixing change changes changed layout weight weights
weighted parameter parameters hyperparameter billion trillion million thousand
sharding shard sharded partition partitioning partitioned placement plan plans
planning strategy strategies search optimal heuristic heuristics policy policies
reinforcement supervised unsupervised self semi contrastive pretrained pre
fine tuning tuned tune task tasks multitask transfer domain adaptation adaptive
generalization generalize robustness adversarial attack attacks defense privacy
secure security safety safe trust trustworthy fair fairness bias explainable
interpretable interpretability explanation explanations knowledge reasoning
question questions answer answering dialogue conversational chat agent agents
text texts word words sentence sentences document documents speech audio video
visual multimodal cross modal modality embedding embeddings encoder decoder
sequence sequences token tokens context contexts window long short term
recurrent convolutional residual feedforward layer layers normalization batch
batches mini micro dropout activation activations recomputation checkpoint
checkpointing checkpoints precision mixed floating point quantization quantized
compression compressed pruning distillation efficient efficiency energy power
aware cost costs budget sublinear trade off tradeoff tradeoffs towards toward
understanding understand explaining measuring measure measurement measurements
estimating estimation estimate predicting prediction predictions predictive
forecasting classification classifier classifiers regression clustering ranking
retrieval recommendation recommender recommenders personalized user users human
humans people social media news online web internet mobile edge devices device
iot sensor sensors wireless networking protocol protocols routing traffic
storage file files database databases query queries transaction transactions
key value store stores cache caches caching kv index indexing log logs logging
operating kernel kernels virtual virtualization container containers scheduling
scheduler schedulers resource resources management manager allocation elastic
fault tolerance tolerant tolerating recovery resilient reliability reliable
availability available replication replicated consensus byzantine agreement
concurrency concurrent lock free wait race races deadlock atomic atomicity
type types typed typing dependent functional imperative object oriented logic
logical symbolic synthesis synthesizing superoptimizer superoptimization rewrite
rewriting rules rule equality saturation term terms abstract abstraction
interpretation domain domains static dynamic analysis analyses analyzer
runtime compile compiled compiling compilation intermediate representation ir
instruction instructions vector vectors vectorization loop loops polyhedral
autotuning tuner search space spaces cost model cost models empirical
characterizing characterization characteristics comprehensive systematic
practical practice principles principle foundations foundation introduction
modern advanced advances recent progress challenges challenge opportunities
opportunity future directions direction perspective perspectives overview
tutorial case lessons learned experience experiences report reports technical
note notes letter comment reply response toward beyond revisiting rethinking
revisited making make makes made making build building built construct
construction constructing generating generate generated find finding finds
found detecting detect detected localize localizing localization diagnose
diagnosing diagnosis debugging debug debugger repair repairing repaired
patch patches patching mining mined learned learn learns learner learners
teaching teacher student students education educational school schools
children child health medical medicine clinical patient patients disease
diseases cancer cell cells gene genes genetic genome genomic protein proteins
molecular molecule molecules chemical chemistry drug drugs brain neuroscience
cognitive cognition psychology psychological behavior behavioral behaviour
mental emotion emotional decision decisions risk risks uncertainty economic
economics market markets financial finance price prices policy political
public private government law legal ethics ethical moral society science
scientific research researchers publication publications citation citations
citing cited retraction retractions retracted journal journals peer paper
papers article articles author authors scholarly open access reproducibility
reproducible replication crisis statistical statistics statistic probability
probabilistic bayesian inference sampling sample samples monte carlo markov
chain chains process processes distribution distributions estimator
estimators maximum likelihood minimum mean variance error correction
correcting codes coding information entropy channel channels capacity signal
signals noise noisy filter filtering frequency spectral wave waves field
fields particle particles matter dark cosmic cosmology cosmological universe
galaxy galaxies star stars stellar black hole holes gravity gravitational
relativity string strings gauge symmetry symmetries boson bosons higgs quark
quarks lattice spin spins magnetic electron electrons electronic phase phases
transition transitions critical temperature thermal heat fluid flow flows
turbulence material materials surface surfaces crystal crystals optical light
laser photon photons atom atoms atomic nuclear plasma solar climate ocean
earth water carbon environmental ecology ecological species evolution
evolutionary natural selection population populations growth development
developing developed developer developers engineering engineer engineers
empirical investigation investigating exploring exploration explore towards
against across along among around behind beyond during except inside near
off onto outside per since though until upon while whether whose would could
should must might shall will do does did doing done being been get gets got
give gives given giving go goes going good great little big long old own same
several many much few less least just even still yet again ever never always
often sometimes here now today well way ways thing things part parts kind
kinds form forms case cases point points number numbers world life year years
day days people man men woman women hand hands place places work works
working worked help helps need needs needed look show shows shown showing
tell take takes taking taken see seen seeing know known knowing think call
called calling come comes coming put set sets setting run runs running ran
keep keeps let begin beginning seem seems like likely unlikely able ability
every end ends ending often back down full fully half least last next early
late real really true truly false whole complete completely simple simply
hard easy easier harder difficult difficulty possible impossible necessary
sufficient important importance significant significance different
difference differences similar similarity same common commonly general
generally specific specifically special particular particularly various
varying main major minor key central core basic basis primary secondary
direct directly indirect local locally global globally private shared share
sharing joint jointly hybrid heterogeneous homogeneous uniform unified
unifying universal flexible extensible modular composable composing
composition compositional hierarchical hierarchy multilevel incremental
iterative interactive collaborative cooperative competitive collective
structured unstructured semi temporal spatial spatio sequential continuous
discrete finite infinite bounded unbounded exact approximate approximation
approximations precise accurate accuracy fast faster fastest slow speed
speedup accelerating accelerate accelerated acceleration boosting boost
improving improve improved improvement improvements enhancing enhance
enhanced reducing reduce reduced minimizing maximizing balancing balance
balanced load loads loading loaded offloading offload transferring moving
move moves moved copy copies copying sending send receiving receive
overlap overlapping overlapped contiguous aligned alignment mismatch
mismatched inconsistent inconsistency inconsistencies nondeterministic
deterministic determinism reproducing reproduce spike spikes nan inf
overflow underflow precision bfloat fp fp16 fp32 fp8 int8 half float double
backward forward backpropagation propagation pass passes step steps stage
stages phase warmup schedule rate rates learning momentum adam optimizer
optimizers sgd regularization regularized weight decay clipping norm norms
layernorm rmsnorm softmax embedding positional rotary rope expert experts
mixture moe router routers routing gate gating switch capacity capacities
sequence tensor pipeline data expert context hybrid parallel parallelize
parallelizing parallelization parallelized ranks rank tp pp dp sp ep zero
offload megatron deepspeed nemo pytorch tensorflow jax xla torch keras
transformers huggingface nccl cuda mpi gloo ddp fsdp lora llm llms gpt bert
slice slicing sliced when use uses when if is are be not with without where
then else into onto only also too very so such same than that this those
these there here what which who whom whose why how across using used when
correct correctly different compared comparing comparison versus order
ordering ordered orders computed compute computes computing calculation
calculate calculated implementation implementations implemented implement
implementing impl issue issues problem problems function functions call calls
frozen freezing freeze linear column columns row rows parallel projection
proj down up skip skipped skipping
dist opt writing write writes written file finetuning fine tuning file during
all gather while add adding added ensure ensures ensuring necessary only
called checks checking breaks break broken breaking moving back cpu gpu
gradient gradients synchronized manual optimization does do not
""".split()
