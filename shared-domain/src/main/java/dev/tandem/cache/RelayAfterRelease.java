package dev.tandem.cache;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.Advisor;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.Ordered;
import org.springframework.transaction.annotation.AnnotationTransactionAttributeSource;
import org.springframework.transaction.interceptor.TransactionAttribute;
import org.springframework.transaction.interceptor.TransactionAttributeSource;

import java.lang.reflect.Method;

/**
 * Wraps every transactional method called through its proxy, outside the transaction interceptor,
 * so that the relays of the commits made in the call run once that interceptor has returned — and
 * so has handed the transaction's connection back to the pool (see {@link WritePath}, "Nor a
 * connection"). The method's caller still gets its answer only after the relays.
 */
final class RelayAfterRelease implements MethodInterceptor {

    private final ObjectProvider<TieredCache> cache;
    /** Looked up at the first call: the advisor is built before the beans it advises, the cache among them. */
    private volatile WritePath writes;

    private RelayAfterRelease(ObjectProvider<TieredCache> cache) {
        this.cache = cache;
    }

    /**
     * The advisor: the methods that have a transaction attribute, as the transaction interceptor
     * reads them, but not a read-only one (its transaction cannot log an invalidation, and the
     * reads' misses need not pay for this), and an order just before that interceptor's
     * (@EnableTransactionManagement's default, the lowest precedence), which puts this one around it.
     */
    static Advisor advisor(ObjectProvider<TieredCache> cache) {
        TransactionAttributeSource transactions = new AnnotationTransactionAttributeSource();
        StaticMethodMatcherPointcut transactional = new StaticMethodMatcherPointcut() {
            @Override
            public boolean matches(Method method, Class<?> targetClass) {
                TransactionAttribute attribute = transactions.getTransactionAttribute(method, targetClass);
                return attribute != null && !attribute.isReadOnly();
            }
        };
        DefaultPointcutAdvisor advisor = new DefaultPointcutAdvisor(transactional, new RelayAfterRelease(cache));
        advisor.setOrder(Ordered.LOWEST_PRECEDENCE - 1);
        return advisor;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        WritePath path = writes;
        if (path == null) {
            path = cache.getObject().writes();
            writes = path;
        }
        return path.relayingOnReturn(invocation::proceed);
    }
}
